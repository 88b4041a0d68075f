package io.mongocdc.pipeline;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one pull ends: a result or the first failure, whichever is set first; later attempts are
 * ignored. Failures after the first are usually consequences of the abort (interrupted waits,
 * closed resources) and must never replace the error that caused it.
 */
final class PullOutcome {

  private static final Logger log = LoggerFactory.getLogger(PullOutcome.class);

  private final AtomicReference<Object> outcome = new AtomicReference<>();
  private final CountDownLatch decided = new CountDownLatch(1);
  private final Runnable onFailure;

  /** @param onFailure run once, by the thread that records the first failure */
  PullOutcome(Runnable onFailure) {
    this.onFailure = onFailure;
  }

  /** Records a failure; returns true if it is the first outcome and so the one reported. */
  boolean fail(Throwable failure) {
    if (outcome.compareAndSet(null, new Failure(failure))) {
      decided.countDown();
      onFailure.run();
      return true;
    }
    log.debug("ignoring a failure after the outcome was decided", failure);
    return false;
  }

  /** Records success; false if a failure came first. */
  boolean succeed(PullResult result) {
    if (outcome.compareAndSet(null, result)) {
      decided.countDown();
      return true;
    }
    return false;
  }

  boolean isDecided() {
    return outcome.get() != null;
  }

  boolean hasFailed() {
    return outcome.get() instanceof Failure;
  }

  void await() throws InterruptedException {
    decided.await();
  }

  boolean await(long timeout, TimeUnit unit) throws InterruptedException {
    return decided.await(timeout, unit);
  }

  /** The first failure, or null. */
  Throwable failure() {
    return outcome.get() instanceof Failure failure ? failure.cause : null;
  }

  /** The result, or null. */
  PullResult result() {
    return outcome.get() instanceof PullResult result ? result : null;
  }

  private record Failure(Throwable cause) {}
}
