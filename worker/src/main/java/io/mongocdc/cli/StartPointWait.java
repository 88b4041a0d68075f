package io.mongocdc.cli;

import io.mongocdc.ports.StartPointCheck;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.bson.BsonTimestamp;

/**
 * Waits, after {@code mirror create} with a start point, until the worker has checked the point
 * against the source's history: the operator learns there and then that it was refused (and the
 * oldest point they may choose instead), not later from {@code mirror status}.
 */
final class StartPointWait {

  /** How long each wait for the workflow's end lasts before status is asked again. */
  private static final long POLL_MILLIS = 500;

  private final MirrorArgument mirror;
  private final WorkflowStub run;
  private final CdcFlowWorkflow workflow;
  private final Duration timeout;

  StartPointWait(WorkflowClient client, MirrorArgument mirror, String runId, Duration timeout) {
    this.mirror = mirror;
    this.run = client.newUntypedWorkflowStub(mirror.workflowId(), Optional.of(runId), Optional.empty());
    this.workflow = client.newWorkflowStub(CdcFlowWorkflow.class, mirror.workflowId(), Optional.of(runId));
    this.timeout = timeout;
  }

  /** @throws CliException if the start point was refused, or setup failed before the check */
  void await(PrintWriter out) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        run.getResult(POLL_MILLIS, TimeUnit.MILLISECONDS, MirrorStatus.class);
        throw new CliException("mirror '" + mirror.name + "': its workflow ended before it was set up",
            ExitCodes.FAILED);
      } catch (TimeoutException stillRunning) {
        // not ended: ask how far setup got
      } catch (WorkflowFailedException failed) {
        throw new CliException("mirror '" + mirror.name + "': not created, nothing was: "
            + Failures.messageOf(applicationFailure(failed)), ExitCodes.INVALID);
      }
      MirrorStatus status = workflow.status();
      if (status.startedFrom() != null) {
        out.printf("mirror %s starts %s%n", mirror.name, describe(status.startedFrom()));
        return;
      }
      if (status.state() == MirrorPhase.FAILED) {
        throw new CliException("mirror '" + mirror.name + "': setup failed and waits for the operator: "
            + status.lastError() + " (mongo-cdc mirror resume " + mirror.name + " tries again once it is fixed; "
            + "mongo-cdc mirror drop " + mirror.name + " removes it)", ExitCodes.FAILED);
      }
      if (System.nanoTime() > deadline) {
        out.printf("mirror %s: its start point is not checked yet after %d s; 'mongo-cdc mirror status %s' shows"
            + " it once it is%n", mirror.name, timeout.toSeconds(), mirror.name);
        return;
      }
    }
  }

  private static Throwable applicationFailure(WorkflowFailedException failed) {
    for (Throwable t = failed; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure) {
        return t;
      }
    }
    return failed.getCause() != null ? failed.getCause() : failed;
  }

  /** As an operator gives it to --start-at or --start-after. */
  static String describe(Checkpoint start) {
    String time = StartPointCheck.describe(
        new BsonTimestamp((int) start.clusterTimeSeconds(), start.clusterTimeIncrement()));
    return start.resumeToken() == null ? "at " + time : "after token " + start.resumeToken() + " (its event at " + time + ")";
  }
}
