package io.mongocdc.cli;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.mongocdc.workflows.model.StopRequest;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowStub;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/** Stops a mirror's workflow so that nothing of it writes any more (drop, resync). */
final class MirrorStop {

  /** How long the workflow gets to stop by itself before it is terminated. */
  static final Duration STOP_WAIT = Duration.ofSeconds(30);
  private static final Duration STOP_POLL = Duration.ofMillis(50);

  private MirrorStop() {}

  /**
   * Stops the mirror's workflow before its tables go or a new run takes over. The terminate signal with cancelInFlight makes it
   * cancel its batch or snapshot copy and wait until that has stopped writing, so nothing writes
   * or creates a table after it is dropped (a Temporal terminate alone leaves the activity
   * running until its next heartbeat). A workflow that has not closed within {@link #STOP_WAIT}
   * (no worker polls its task queue) is terminated.
   *
   * @return false if no run of the workflow is running (never started, or closed already)
   */
  static boolean stopIfRunning(MirrorArgument mirror, WorkflowClient client, String reason) {
    WorkflowStub stub = mirror.untyped(client);
    if (!running(stub)) {
      return false;
    }
    try {
      mirror.workflow(client).terminate(new StopRequest(true));
    } catch (WorkflowNotFoundException closedMeanwhile) {
      return true;
    }
    long deadline = System.nanoTime() + STOP_WAIT.toNanos();
    while (running(stub)) {
      if (System.nanoTime() > deadline) {
        terminate(stub, reason);
        break;
      }
      LockSupport.parkNanos(STOP_POLL.toNanos());
    }
    return true;
  }

  /** Whether a run of the workflow is running (not never started, not closed). */
  static boolean running(WorkflowStub stub) {
    try {
      return stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
    } catch (WorkflowNotFoundException e) {
      return false;
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  private static void terminate(WorkflowStub stub, String reason) {
    try {
      stub.terminate(reason);
    } catch (WorkflowNotFoundException closedMeanwhile) {
      // it stopped on its own after all
    }
  }
}
