package io.mongocdc.devtools.generator;

import java.time.InstantSource;

/**
 * The generator's cluster time: counts events within a second, as a live server's oplog does
 * (the rules of {@code ChangeEvents} with a clock), so cluster times only grow. The second
 * comes either from a clock ({@link #following}: the development generator's times follow the
 * wall clock) or from the number of ticks alone ({@link #simulated}: one millisecond per tick
 * from a fixed start, so the times are a function of the event's place in the stream and every
 * process that generates the stream gives its events the same times and tokens).
 */
final class ClusterClock {

  private final InstantSource clock;
  private final long startMillis;
  private long ticks;
  private int seconds;
  private int increment;
  private long wallMillis;

  private ClusterClock(InstantSource clock, long startMillis) {
    this.clock = clock;
    this.startMillis = startMillis;
    this.wallMillis = clock == null ? startMillis : clock.millis();
    this.seconds = (int) Math.floorDiv(wallMillis, 1000L);
  }

  /** Times that follow {@code clock}'s seconds. */
  static ClusterClock following(InstantSource clock) {
    return new ClusterClock(clock, 0);
  }

  /** Times that advance one millisecond per tick from {@code startMillis}, whatever the wall clock says. */
  static ClusterClock simulated(long startMillis) {
    return new ClusterClock(null, startMillis);
  }

  /** Moves to the next cluster time. */
  void tick() {
    ticks++;
    long now = clock == null ? startMillis + ticks : clock.millis();
    int nowSeconds = (int) Math.floorDiv(now, 1000L);
    if (nowSeconds > seconds) {
      seconds = nowSeconds;
      increment = 0;
    }
    increment++;
    wallMillis = Math.max(wallMillis, now);
  }

  /**
   * The cluster time of an idle stream's post-batch token: after every event so far and not
   * after the next one. Following a clock, the clock moves to it (as a server's time moves while
   * nothing happens); simulated, it is the next tick's time and the clock stays, so that when a
   * stream goes idle does not change the times of the events after.
   */
  long highWaterMark() {
    if (clock != null) {
      tick();
      return clusterTime();
    }
    int nextSeconds = (int) Math.floorDiv(startMillis + ticks + 1, 1000L);
    return nextSeconds > seconds ? (long) nextSeconds << 32 | 1L : (long) seconds << 32 | increment + 1 & 0xFFFFFFFFL;
  }

  /** The current cluster time as a BSON timestamp's value: seconds, then increment. */
  long clusterTime() {
    return (long) seconds << 32 | increment & 0xFFFFFFFFL;
  }

  long wallMillis() {
    return wallMillis;
  }
}
