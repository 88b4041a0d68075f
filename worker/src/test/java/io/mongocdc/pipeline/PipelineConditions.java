package io.mongocdc.pipeline;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition of the pipeline's observable state, which is not a timed guess. */
final class PipelineConditions {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private PipelineConditions() {}

  /** Polls {@code condition} until it holds; fails the test if it does not within 20 s. */
  static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("never happened: " + what);
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }
}
