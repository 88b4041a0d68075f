package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** Runs a pull on a thread of its own so a test can act while it runs, then collects its outcome. */
final class PullOutcomeProbe {

  private static final long RETURN_WITHIN_SECONDS = 10;
  /**
   * CPU time a pull's threads spend in {@link #RETURN_WITHIN_SECONDS} when they still work: a
   * parked or blocked pipeline spends next to none.
   */
  private static final long BUSY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final AtomicReference<PullResult> result = new AtomicReference<>();
  private final AtomicReference<Throwable> thrown = new AtomicReference<>();
  private final Thread caller;

  private PullOutcomeProbe(PullFixture fixture, List<? extends RecordSink> sinks, ProgressListener listener) {
    PullRecords pullRecords = fixture.pullRecords();
    caller = new Thread(() -> {
      try {
        result.set(pullRecords.pull(PullFixture.START, sinks, listener));
      } catch (Throwable t) {
        thrown.set(t);
      }
    }, "test-caller");
    PipelineCleanup.cancelsAfterTest(this);
    caller.start();
  }

  static PullOutcomeProbe start(PullFixture fixture, RecordSink sink) {
    return new PullOutcomeProbe(fixture, List.of(sink), ProgressListener.none());
  }

  static PullOutcomeProbe start(PullFixture fixture, RecordSink sink, ProgressListener listener) {
    return new PullOutcomeProbe(fixture, List.of(sink), listener);
  }

  /** A pull over several sinks, one apply lane each. */
  static PullOutcomeProbe start(PullFixture fixture, List<? extends RecordSink> lanes) {
    return new PullOutcomeProbe(fixture, lanes, ProgressListener.none());
  }

  static PullOutcomeProbe start(PullFixture fixture, List<? extends RecordSink> lanes, ProgressListener listener) {
    return new PullOutcomeProbe(fixture, lanes, listener);
  }

  /** Interrupts the thread that called pull, as a caller cancelling it would. */
  void cancel() {
    caller.interrupt();
  }

  /**
   * Cleanup after a test, passed or failed: cancels the pull if it still runs and waits for it
   * to return, so a failing test does not leave its pull running into the next one.
   */
  void cancelAndAwait() throws InterruptedException {
    if (caller.isAlive()) {
      caller.interrupt();
      caller.join(TimeUnit.SECONDS.toMillis(RETURN_WITHIN_SECONDS));
    }
  }

  /** What the pull threw; it must return within 10 seconds. */
  Throwable thrown() throws InterruptedException {
    awaitReturn();
    if (thrown.get() == null) {
      throw new AssertionError("the pull succeeded: " + result.get());
    }
    return thrown.get();
  }

  PullRecordsException failure() throws InterruptedException {
    return assertInstanceOf(PullRecordsException.class, thrown());
  }

  /**
   * What the pull returned. It must return within 10 seconds, or keep working: a pull whose
   * threads are busy (decoding, writing) on a machine shared with other work is waited for; one
   * whose threads did no work for 10 seconds is hung and fails the test.
   */
  PullResult result() throws InterruptedException {
    awaitCompletion();
    if (thrown.get() != null) {
      throw new AssertionError("the pull failed", thrown.get());
    }
    return result.get();
  }

  private void awaitCompletion() throws InterruptedException {
    Map<Long, Long> seen = new HashMap<>();
    long worked = PipelineThreads.cpuNanos(caller, seen);
    caller.join(TimeUnit.SECONDS.toMillis(RETURN_WITHIN_SECONDS));
    while (caller.isAlive()) {
      long now = PipelineThreads.cpuNanos(caller, seen);
      if (now - worked < BUSY_NANOS) {
        throw new AssertionError("the pull did not return within " + RETURN_WITHIN_SECONDS
            + " s, and its threads did no work in the last " + RETURN_WITHIN_SECONDS + " s");
      }
      worked = now;
      caller.join(TimeUnit.SECONDS.toMillis(RETURN_WITHIN_SECONDS));
    }
  }

  private void awaitReturn() throws InterruptedException {
    caller.join(TimeUnit.SECONDS.toMillis(RETURN_WITHIN_SECONDS));
    if (caller.isAlive()) {
      throw new AssertionError("the pull did not return within " + RETURN_WITHIN_SECONDS + " s");
    }
  }
}
