package io.mongocdc.cli;

import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.MirrorConfig;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.io.PrintWriter;
import picocli.CommandLine.Command;

@Command(name = "resync", mixinStandardHelpOptions = true,
    description = {"After the change history was lost (the mirror FAILED with ChangeStreamHistoryLost): stop the "
        + "mirror's workflow and start it again from a new starting point. Every collection is copied again into "
        + "its existing tables (no drop: readers keep their rows), then the rows the copy did not see (documents "
        + "deleted while the history was lost) are deleted, then changes stream from the new starting point.",
        "The configuration in effect is kept; the batch numbers go on."})
final class MirrorResyncCommand extends MirrorSubcommand {

  MirrorResyncCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) {
    MirrorConfig config = mirror.workflow(client).status().config();
    MirrorStop.stopIfRunning(mirror, client, "resynced by mongo-cdc mirror resync");
    CdcFlowWorkflow workflow = client.newWorkflowStub(CdcFlowWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(mirror.workflowId())
        .setTaskQueue(mirror.temporal.taskQueue())
        .build());
    String runId = WorkflowClient.start(workflow::run, CdcFlowInput.resynced(config)).getRunId();
    out.printf("mirror %s: resync started (workflow %s, run %s): copying every collection again from a new "
        + "starting point, then deleting the rows the copy did not see; 'mongo-cdc mirror status %s' shows the "
        + "progress%n", mirror.name, mirror.workflowId(), runId, mirror.name);
  }
}
