package io.mongocdc.ports;

/**
 * Where a failed PullRecords attempt leaves its trace, so an operator can see why a batch was
 * retried. Writing it must never change how the attempt fails.
 */
@FunctionalInterface
public interface FailedAttemptLog {

  /** Records nothing (a worker without a catalog, tests that do not look). */
  FailedAttemptLog NONE = (mirror, batchId, attempt, failureType, message) -> {};

  /**
   * @param attempt the activity attempt that failed (1, 2, ...)
   * @param failureType the failure type the attempt ends with (see {@code FailureTypes})
   * @param message the failure in one line, redacted
   */
  void record(String mirror, long batchId, int attempt, String failureType, String message);
}
