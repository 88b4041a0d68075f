package io.mongocdc.cli;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.mongocdc.secrets.Redaction;
import io.mongocdc.wiring.PortsUnavailableException;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;

/** Turns what a command threw into one line for the operator and an exit code. */
final class Failures {

  private Failures() {}

  static CliException explain(Throwable failure, String mirror, TemporalOptions temporal) {
    if (failure instanceof CliException cli) {
      return cli;
    }
    if (failure instanceof PortsUnavailableException unavailable) {
      return new CliException(unavailable.getMessage(), ExitCodes.FAILED);
    }
    String subject = mirror == null ? "" : "mirror '" + mirror + "': ";
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof WorkflowNotFoundException) {
        return new CliException(subject + "not found (no running workflow mirror-" + mirror + ")", ExitCodes.NOT_FOUND);
      }
      if (t instanceof WorkflowExecutionAlreadyStarted) {
        return new CliException(subject + "already exists (workflow mirror-" + mirror + " is running)", ExitCodes.FAILED);
      }
      if (t instanceof WorkflowUpdateException update) {
        return new CliException(subject + "rejected: " + messageOf(update.getCause()), ExitCodes.INVALID);
      }
      if (t instanceof IllegalArgumentException invalid) {
        return new CliException(subject + invalid.getMessage(), ExitCodes.INVALID);
      }
      if (t instanceof StatusRuntimeException grpc) {
        Status.Code code = grpc.getStatus().getCode();
        if (code == Status.Code.NOT_FOUND) {
          return new CliException(subject + "not found: " + grpc.getStatus().getDescription(), ExitCodes.NOT_FOUND);
        }
        if (code == Status.Code.UNAVAILABLE) {
          return new CliException("cannot reach Temporal at " + temporal.address() + ": "
              + grpc.getStatus().getDescription() + " (is the server running there? see --temporal-address)",
              ExitCodes.FAILED);
        }
        if (code == Status.Code.DEADLINE_EXCEEDED) {
          // Reachable but slow: the request may still take effect, so repeating it blindly is wrong.
          return new CliException(subject + "Temporal at " + temporal.address() + " did not answer within "
              + temporal.timeout().toSeconds() + " s (" + grpc.getStatus().getDescription() + "); the server or this "
              + "machine is busy. The request may still take effect: check with 'mongo-cdc mirror status' before "
              + "repeating it, or allow longer with --temporal-timeout", ExitCodes.FAILED);
        }
      }
    }
    return new CliException(subject + messageOf(failure), ExitCodes.FAILED);
  }

  static String messageOf(Throwable failure) {
    if (failure == null) {
      return "unknown failure";
    }
    String message = failure instanceof ApplicationFailure application ? application.getOriginalMessage()
        : failure instanceof TemporalFailure temporal ? temporal.getOriginalMessage()
        : failure.getMessage() != null ? failure.getMessage() : failure.getClass().getSimpleName();
    return Redaction.redact(message).replaceAll("\\s+", " ").trim();
  }
}
