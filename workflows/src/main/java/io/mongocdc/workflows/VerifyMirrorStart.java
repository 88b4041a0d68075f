package io.mongocdc.workflows;

import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.VerifyRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionAlreadyStarted;
import io.temporal.client.WorkflowOptions;
import java.util.List;

/**
 * Starts a mirror's {@link VerifyMirrorWorkflow} ({@code verify-<mirror>}), or finds the one that
 * runs already: what {@code mongo-cdc mirror verify} and the console's verify button both do.
 *
 * @param workflow the verify workflow started, or the one that ran already
 * @param alreadyRunning a verify of the mirror was running: nothing new started
 */
public record VerifyMirrorStart(VerifyMirrorWorkflow workflow, String workflowId, boolean alreadyRunning) {

  /**
   * @throws IllegalArgumentException naming the mirror and what is wrong with {@code request},
   *     before anything starts
   */
  public static VerifyMirrorStart start(WorkflowClient client, String taskQueue, VerifyRequest request) {
    List<String> problems = request.problems();
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("cannot verify mirror " + request.mirror().name() + ": "
          + String.join("; ", problems));
    }
    String workflowId = MirrorIds.verifyWorkflowId(request.mirror().name());
    VerifyMirrorWorkflow verify = client.newWorkflowStub(VerifyMirrorWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(workflowId).setTaskQueue(taskQueue).build());
    try {
      WorkflowClient.start(verify::run, request);
      return new VerifyMirrorStart(verify, workflowId, false);
    } catch (WorkflowExecutionAlreadyStarted running) {
      return new VerifyMirrorStart(client.newWorkflowStub(VerifyMirrorWorkflow.class, workflowId), workflowId, true);
    }
  }
}
