package io.mongocdc.source.generator;

import java.time.InstantSource;

/**
 * The generator's cluster time: follows a clock's seconds and counts events within a second, as
 * a live server's oplog does (the rules of {@code ChangeEvents} with a clock), so cluster times
 * only grow.
 */
final class ClusterClock {

  private final InstantSource clock;
  private int seconds;
  private int increment;
  private long wallMillis;

  ClusterClock(InstantSource clock) {
    this.clock = clock;
    this.seconds = (int) clock.instant().getEpochSecond();
    this.wallMillis = clock.millis();
  }

  /** Moves to the next cluster time. */
  void tick() {
    long now = clock.millis();
    int nowSeconds = (int) (now / 1000);
    if (nowSeconds > seconds) {
      seconds = nowSeconds;
      increment = 0;
    }
    increment++;
    wallMillis = Math.max(wallMillis, now);
  }

  /** The current cluster time as a BSON timestamp's value: seconds, then increment. */
  long clusterTime() {
    return (long) seconds << 32 | increment & 0xFFFFFFFFL;
  }

  long wallMillis() {
    return wallMillis;
  }
}
