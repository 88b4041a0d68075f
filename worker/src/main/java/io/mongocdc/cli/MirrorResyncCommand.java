package io.mongocdc.cli;

import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.EditResult;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "resync", mixinStandardHelpOptions = true,
    description = {"After the change history was lost (the mirror FAILED with ChangeStreamHistoryLost): stop the "
        + "mirror's workflow and start it again from a new starting point. Every collection is copied again into "
        + "its existing tables (no drop: readers keep their rows), then the rows the copy did not see (documents "
        + "deleted while the history was lost) are deleted, then changes stream from the new starting point.",
        "The configuration in effect is kept; the batch numbers go on.",
        "With --collection, only those collections are copied again, by an edit to the running workflow (no restart): "
            + "from the committed checkpoint, before the next batch, then their rows the copy did not see are deleted; "
            + "the other collections' changes follow from the checkpoint without a gap."})
final class MirrorResyncCommand extends MirrorSubcommand {

  @Option(names = "--collection", paramLabel = "NAME",
      description = "Copy only this collection again (repeat it), while the mirror keeps its checkpoint and every"
          + " collection keeps streaming: the copy takes turns with the batches.")
  List<String> collections;

  MirrorResyncCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) {
    if (collections != null && !collections.isEmpty()) {
      resyncCollections(client, out);
      return;
    }
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

  private void resyncCollections(WorkflowClient client, PrintWriter out) {
    EditResult result = mirror.workflow(client).edit(Map.of(MirrorSettings.RESYNC_COLLECTIONS.name(), collections));
    out.printf("mirror %s: copying %s again from the committed checkpoint from batch %d on, a round of partitions"
        + " between batches, so every collection keeps streaming; then deleting their rows the copy did not see;"
        + " 'mongo-cdc mirror status %s' shows the progress%n", mirror.name, String.join(", ", collections),
        result.appliesFromBatch(), mirror.name);
  }
}
