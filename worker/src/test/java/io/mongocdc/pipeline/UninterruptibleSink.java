package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeRecord;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A sink whose write, like a JDBC call, does not end on interrupt. {@link #untilAborted} returns
 * a while (300 ms, the socket close taking effect) after the pipeline aborts it;
 * {@link #untilReleased} only when the test releases it, however long the pipeline waits. An
 * interrupt it put off is restored for the caller to see.
 */
final class UninterruptibleSink implements RecordSink {

  private static final Duration AFTER_ABORT = Duration.ofMillis(300);
  private static final Duration AT_MOST = Duration.ofSeconds(30);

  final CountDownLatch entered = new CountDownLatch(1);
  final AtomicBoolean finished = new AtomicBoolean();
  private final CountDownLatch aborted = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);
  private final boolean endsOnAbort;
  private volatile Runnable onWrite = () -> {};

  private UninterruptibleSink(boolean endsOnAbort) {
    this.endsOnAbort = endsOnAbort;
  }

  static UninterruptibleSink untilAborted() {
    return new UninterruptibleSink(true);
  }

  static UninterruptibleSink untilReleased() {
    return PipelineCleanup.releasesAfterTest(new UninterruptibleSink(false));
  }

  /** Runs {@code action} as the first write starts (to make something else happen meanwhile). */
  UninterruptibleSink onWrite(Runnable action) {
    onWrite = action;
    return this;
  }

  void release() {
    released.countDown();
  }

  @Override
  public void write(List<ChangeRecord> records) {
    entered.countDown();
    onWrite.run();
    boolean interrupted;
    if (endsOnAbort) {
      interrupted = awaitUninterruptibly(aborted, AT_MOST);
      interrupted |= awaitUninterruptibly(new CountDownLatch(1), AFTER_ABORT);
    } else {
      interrupted = awaitUninterruptibly(released, AT_MOST);
    }
    finished.set(true);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void commit() {}

  @Override
  public void abort(Throwable cause) {
    aborted.countDown();
  }

  /** @return whether an interrupt came meanwhile */
  private static boolean awaitUninterruptibly(CountDownLatch latch, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean interrupted = false;
    while (latch.getCount() > 0 && System.nanoTime() < deadline) {
      try {
        latch.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    return interrupted;
  }
}
