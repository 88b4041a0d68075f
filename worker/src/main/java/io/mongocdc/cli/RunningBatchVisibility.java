package io.mongocdc.cli;

import io.mongocdc.activities.PullHeartbeat;
import io.mongocdc.workflows.ActivityNames;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import java.util.Optional;

/**
 * How far the destination's visible rows reach according to the running batch's last heartbeat:
 * the status query only knows it as of the last batch that ended, and a batch may run for
 * minutes. Read from the workflow's pending PullRecords activity (DescribeWorkflowExecution).
 *
 * @param visibleThroughMillis the source commit time of the newest change visible in the
 *     destination
 * @param reportedAtMillis when the heartbeat that said so arrived
 */
record RunningBatchVisibility(long visibleThroughMillis, long reportedAtMillis) {

  /** The running batch's figure; empty when no batch runs, it has made nothing visible yet, or it cannot be read. */
  static Optional<RunningBatchVisibility> read(WorkflowClient client, String workflowId) {
    try {
      var response = client.getWorkflowServiceStubs().blockingStub().describeWorkflowExecution(
          DescribeWorkflowExecutionRequest.newBuilder()
              .setNamespace(client.getOptions().getNamespace())
              .setExecution(WorkflowExecution.newBuilder().setWorkflowId(workflowId))
              .build());
      for (PendingActivityInfo activity : response.getPendingActivitiesList()) {
        if (activity.getActivityType().getName().equals(ActivityNames.PULL_RECORDS) && activity.hasHeartbeatDetails()) {
          PullHeartbeat heartbeat = client.getOptions().getDataConverter().fromPayloads(0,
              Optional.of(activity.getHeartbeatDetails()), PullHeartbeat.class, PullHeartbeat.class);
          if (heartbeat != null && heartbeat.visibleThroughMillis() != null) {
            long at = activity.getLastHeartbeatTime().getSeconds() * 1000 + activity.getLastHeartbeatTime().getNanos() / 1_000_000;
            return Optional.of(new RunningBatchVisibility(heartbeat.visibleThroughMillis(), at));
          }
        }
      }
      return Optional.empty();
    } catch (RuntimeException e) {
      // The status query answered; the live figure is a refinement, not worth failing the command.
      return Optional.empty();
    }
  }
}
