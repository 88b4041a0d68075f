package io.mongocdc.workflows;

import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.failure.TemporalFailure;
import io.temporal.failure.TimeoutFailure;

/** Reads an activity failure: does it need the operator, and what to tell them in one line. */
final class Failures {

  private Failures() {}

  static boolean needsOperator(Throwable failure) {
    ApplicationFailure application = applicationCause(failure);
    return application != null
        && (application.isNonRetryable() || FailureTypes.NON_RETRYABLE.contains(application.getType()));
  }

  /** The configuration (for example a collection added by an edit) is what the activity refused. */
  static boolean isInvalidConfiguration(Throwable failure) {
    ApplicationFailure application = applicationCause(failure);
    return application != null && FailureTypes.INVALID_CONFIGURATION.equals(application.getType());
  }

  /** The failure's type: the application failure's, else Timeout or Cancelled, else Unknown. */
  static String type(Throwable failure) {
    ApplicationFailure application = applicationCause(failure);
    if (application != null) {
      return application.getType();
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TimeoutFailure) {
        return "Timeout";
      }
      if (t instanceof CanceledFailure) {
        return "Cancelled";
      }
    }
    return "Unknown";
  }

  static String describe(Throwable failure) {
    String activity = failure instanceof ActivityFailure a ? a.getActivityType() + ": " : "";
    ApplicationFailure application = applicationCause(failure);
    if (application != null) {
      return activity + "[" + application.getType() + "] " + application.getOriginalMessage();
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof TimeoutFailure timeout) {
        return activity + "timed out (" + timeout.getTimeoutType() + ")";
      }
      if (t instanceof CanceledFailure) {
        return activity + "cancelled";
      }
    }
    String message = failure instanceof TemporalFailure temporal ? temporal.getOriginalMessage() : failure.getMessage();
    return activity + message;
  }

  /** The application failure's own message, else {@link #describe}. */
  static String message(Throwable failure) {
    ApplicationFailure application = applicationCause(failure);
    return application != null ? application.getOriginalMessage() : describe(failure);
  }

  private static ApplicationFailure applicationCause(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure application) {
        return application;
      }
    }
    return null;
  }
}
