package io.mongocdc.pipeline;

import java.util.concurrent.CancellationException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * How many chunks the pulls of one worker decode at once, whichever mirror they belong to.
 * Decoding is the pipeline's CPU work: each pull decodes with up to its mirror's {@code
 * decodeWorkers} threads, so ten mirrors of four each would run forty decodes on a machine of a
 * few cores. Sharing this cap keeps the sum at about the cores, and the semaphore is fair, so a
 * busy mirror cannot keep a quiet one from decoding: each waiting chunk gets the next free slot in
 * turn.
 *
 * <p>A decode holds its slot only while it decodes (it waits for nothing else), so slots always
 * come back and pulls sharing them cannot deadlock.
 */
public final class DecodeThreads {

  private final int max;
  private final Semaphore slots;
  private final AtomicInteger busy = new AtomicInteger();
  private final AtomicInteger highWaterMark = new AtomicInteger();

  /** @throws IllegalArgumentException if {@code max} is less than 1 */
  public DecodeThreads(int max) {
    if (max < 1) {
      throw new IllegalArgumentException("decode threads must be at least 1, got " + max);
    }
    this.max = max;
    this.slots = new Semaphore(max, true);
  }

  /** As many as the JVM has processors: the default of a worker. */
  public static int defaultMax() {
    return Runtime.getRuntime().availableProcessors();
  }

  public int max() {
    return max;
  }

  /** Decodes running now. */
  public int busy() {
    return busy.get();
  }

  /** The most decodes that ran at once. */
  public int highWaterMark() {
    return highWaterMark.get();
  }

  /** Decodes waiting for a slot. */
  public int waiting() {
    return slots.getQueueLength();
  }

  /**
   * Runs {@code decode} in a slot, waiting for one.
   *
   * @throws CancellationException if the thread is interrupted while waiting: its pull is being
   *     stopped (the interrupt is kept)
   */
  <T> T decode(Supplier<T> decode) {
    try {
      slots.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CancellationException("interrupted while waiting for a decode thread");
    }
    try {
      highWaterMark.accumulateAndGet(busy.incrementAndGet(), Math::max);
      return decode.get();
    } finally {
      busy.decrementAndGet();
      slots.release();
    }
  }
}
