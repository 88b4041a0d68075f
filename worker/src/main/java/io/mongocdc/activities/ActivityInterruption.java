package io.mongocdc.activities;

import io.mongocdc.workflows.FailureTypes;
import io.temporal.client.ActivityCompletionException;
import io.temporal.failure.ApplicationFailure;

/**
 * How a long activity ends when Temporal cancels it or its worker shuts down. A cancellation
 * learnt from a heartbeat reaches the activity wrapped in whatever the pipeline or cursor threw;
 * it must still be reported as the cancellation, or the workflow would see a failure and retry
 * a batch it asked to stop. An interrupt means the worker is going away: the attempt is retried
 * elsewhere, so it is transient whatever was in flight.
 */
final class ActivityInterruption {

  private ActivityInterruption() {}

  /** Throws the {@link ActivityCompletionException} among {@code failure}'s causes, if there is one. */
  static void rethrowIfCompletion(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ActivityCompletionException completion) {
        throw completion;
      }
    }
  }

  /**
   * Restores the thread's interrupt and returns the transient failure to throw.
   *
   * @param activity the activity type name
   * @param retried what the retry does, e.g. "the partition is copied again"
   */
  static ApplicationFailure workerShuttingDown(String activity, String retried) {
    Thread.currentThread().interrupt();
    return ApplicationFailure.newFailure(activity + ": the worker is shutting down; " + retried, FailureTypes.TRANSIENT);
  }
}
