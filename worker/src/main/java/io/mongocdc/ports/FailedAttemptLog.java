package io.mongocdc.ports;

/**
 * Where a PullRecords attempt leaves its trace, so an operator can see why a batch was retried:
 * its start (so an attempt lost with its worker, which cannot say it failed, still shows), then
 * how it ended. Writing it must never change how the attempt runs or fails.
 */
public interface FailedAttemptLog {

  /** Records nothing (a worker without a catalog, tests that do not look). */
  FailedAttemptLog NONE = (mirror, batchId, attempt, failureType, message) -> {};

  /** The attempts as the catalog keeps them ({@link CheckpointCatalog#recordAttemptStarted} and the rest). */
  static FailedAttemptLog of(CheckpointCatalog catalog) {
    return new FailedAttemptLog() {
      @Override
      public void started(String mirror, long batchId, int attempt) {
        catalog.recordAttemptStarted(mirror, batchId, attempt);
      }

      @Override
      public void ended(String mirror, long batchId, int attempt) {
        catalog.recordAttemptEnded(mirror, batchId, attempt);
      }

      @Override
      public void record(String mirror, long batchId, int attempt, String failureType, String message) {
        catalog.recordFailedAttempt(mirror, batchId, attempt, failureType, message);
      }
    };
  }

  /** The attempt {@code attempt} (1, 2, ...) of batch {@code batchId} has started; by default not recorded. */
  default void started(String mirror, long batchId, int attempt) {}

  /** The attempt ended without failing (it delivered its batch, or it was cancelled); by default not recorded. */
  default void ended(String mirror, long batchId, int attempt) {}

  /**
   * @param attempt the activity attempt that failed (1, 2, ...)
   * @param failureType the failure type the attempt ends with (see {@code FailureTypes})
   * @param message the failure in one line, redacted
   */
  void record(String mirror, long batchId, int attempt, String failureType, String message);
}
