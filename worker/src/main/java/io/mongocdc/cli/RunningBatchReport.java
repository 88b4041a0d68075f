package io.mongocdc.cli;

import io.mongocdc.activities.PullHeartbeat;
import io.mongocdc.workflows.ActivityNames;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.client.WorkflowClient;
import java.util.Optional;

/**
 * What the running batch's last heartbeat says: the status query only knows batches that ended,
 * and a batch may run, or wait for its destination connections, for minutes. Read from the
 * workflow's pending PullRecords activity (DescribeWorkflowExecution).
 *
 * @param visibleThroughMillis the source commit time of the newest change visible in the
 *     destination; null before the batch made one visible
 * @param waitingSinceMillis when the batch began to wait for its destination connections; null
 *     when it does not wait
 * @param reportedAtMillis when the heartbeat that said so arrived
 */
record RunningBatchReport(Long visibleThroughMillis, Long waitingSinceMillis, long reportedAtMillis) {

  /** The running batch's report; empty when no batch runs, it has said nothing yet, or it cannot be read. */
  static Optional<RunningBatchReport> read(WorkflowClient client, String workflowId) {
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
          if (heartbeat != null && (heartbeat.visibleThroughMillis() != null || heartbeat.waitingSinceMillis() != null)) {
            long at = activity.getLastHeartbeatTime().getSeconds() * 1000 + activity.getLastHeartbeatTime().getNanos() / 1_000_000;
            return Optional.of(new RunningBatchReport(heartbeat.visibleThroughMillis(), heartbeat.waitingSinceMillis(),
                at));
          }
        }
      }
      return Optional.empty();
    } catch (RuntimeException e) {
      // The status query answered; the live figures are a refinement, not worth failing the command.
      return Optional.empty();
    }
  }
}
