package io.mongocdc.faults;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Tells a scenario's driver when to give up by what the scenario has done, not by the clock
 * alone: it is overdue when its progress mark has not moved for the stall limit (a hang), or when
 * it keeps moving past the ceiling without the scenario ending (a livelock). A scenario on a busy
 * machine is slower, not failed; its failure message says how far it got and how long it took.
 */
final class ProgressWatch {

  private final Duration stallLimit;
  private final Duration ceiling;
  private final LongSupplier nanoClock;
  private final long started;
  private long mark;
  private long movedAt;

  /** Starts watching now; {@code nanoClock} is {@code System::nanoTime} outside of tests. */
  ProgressWatch(Duration stallLimit, Duration ceiling, LongSupplier nanoClock) {
    this.stallLimit = stallLimit;
    this.ceiling = ceiling;
    this.nanoClock = nanoClock;
    this.started = nanoClock.getAsLong();
    this.movedAt = started;
  }

  /**
   * Records the scenario's progress mark (a count that grows with work done) and answers null
   * while the scenario may go on, else why it may not.
   */
  synchronized String overdue(long progress) {
    long now = nanoClock.getAsLong();
    if (progress != mark) {
      mark = progress;
      movedAt = now;
    }
    long quiet = now - movedAt;
    long ran = now - started;
    if (quiet >= stallLimit.toNanos()) {
      return "no progress for " + seconds(quiet) + " (progress mark " + mark + " after " + seconds(ran) + ")";
    }
    if (ran >= ceiling.toNanos()) {
      return "still not done after " + seconds(ran) + " though it kept making progress (progress mark " + mark
          + "): a livelock, or a machine far slower than the " + seconds(ceiling.toNanos()) + " allowed";
    }
    return null;
  }

  /** Whether {@link #overdue} would fail the scenario now, without recording progress. */
  synchronized boolean expired() {
    long now = nanoClock.getAsLong();
    return now - movedAt >= stallLimit.toNanos() || now - started >= ceiling.toNanos();
  }

  /** How long the scenario has run. */
  Duration elapsed() {
    return Duration.ofNanos(nanoClock.getAsLong() - started);
  }

  private static String seconds(long nanos) {
    return String.format("%.1f s", nanos / 1e9);
  }
}
