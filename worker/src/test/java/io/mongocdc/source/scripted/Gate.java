package io.mongocdc.source.scripted;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A point where a scripted stage stops until a test releases it. The test learns that the stage
 * got there through {@link #awaitReached}, so tests synchronise on events, never on sleeps.
 */
public final class Gate {

  private final CountDownLatch reached = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);

  /** Called by the stage: marks the gate reached and waits (interruptibly) for the release. */
  public void pass() throws InterruptedException {
    reached.countDown();
    released.await();
  }

  /** Waits until a stage reached the gate; false if it did not within {@code timeout}. */
  public boolean awaitReached(Duration timeout) throws InterruptedException {
    return reached.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  public boolean isReached() {
    return reached.getCount() == 0;
  }

  public void release() {
    released.countDown();
  }
}
