package io.mongocdc.verify;

import java.util.function.LongSupplier;

/**
 * Keeps a reader at or below a rate: after each document, waits until the time the documents read
 * so far are due at that rate. Verify reads the source through one, so it never loads the source
 * more than its {@code documentsPerSecond} allows, however fast the source answers.
 */
public final class ReadPacer {

  /** Waits (may be interrupted). */
  @FunctionalInterface
  public interface Sleeper {
    void sleepNanos(long nanos) throws InterruptedException;
  }

  private final double nanosPerDocument;
  private final LongSupplier nanoClock;
  private final Sleeper sleeper;
  private final long start;
  private long documents;

  public ReadPacer(int documentsPerSecond, LongSupplier nanoClock, Sleeper sleeper) {
    if (documentsPerSecond <= 0) {
      throw new IllegalArgumentException("documentsPerSecond must be positive, not " + documentsPerSecond);
    }
    this.nanosPerDocument = 1e9 / documentsPerSecond;
    this.nanoClock = nanoClock;
    this.sleeper = sleeper;
    this.start = nanoClock.getAsLong();
  }

  public static ReadPacer systemClock(int documentsPerSecond) {
    return new ReadPacer(documentsPerSecond, System::nanoTime,
        nanos -> Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000)));
  }

  /** Counts {@code n} documents read and waits until reading them was allowed. */
  public void read(long n) throws InterruptedException {
    documents += n;
    long due = start + (long) (documents * nanosPerDocument);
    long wait = due - nanoClock.getAsLong();
    if (wait > 0) {
      sleeper.sleepNanos(wait);
    }
  }
}
