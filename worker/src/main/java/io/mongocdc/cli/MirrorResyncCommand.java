package io.mongocdc.cli;

import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.EditResult;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.ResyncAccepted;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "resync", mixinStandardHelpOptions = true,
    description = {"After the change history was lost (the mirror FAILED with ChangeStreamHistoryLost), or whenever "
        + "the destination should be rebuilt from the source: every collection is copied again into its existing "
        + "tables from a new starting point (no drop: readers keep their rows), then the rows the copy did not see "
        + "(documents deleted while the history was lost) are deleted; changes stream from the new starting "
        + "point meanwhile.",
        "The running workflow does it (no restart): the batch in flight finishes, accepted edits take effect first, "
            + "a field rule rewrite under way finishes before the copy, a paused or failed mirror goes on, and the "
            + "batch numbers go on. A mirror whose workflow has ended is started again to resync, unless it ended "
            + "with edits pending or a rewrite under way (those would be lost: create the mirror again instead).",
        "With --collection, only those collections are copied again, by an edit to the running workflow: "
            + "from the committed checkpoint, beside the batches, then their rows the copy did not see are deleted; "
            + "every collection's changes follow from the checkpoint without a gap."})
final class MirrorResyncCommand extends MirrorSubcommand {

  @Option(names = "--collection", paramLabel = "NAME",
      description = "Copy only this collection again (repeat it), while the mirror keeps its checkpoint and every"
          + " collection keeps streaming: the copy is made beside the batches.")
  List<String> collections;

  MirrorResyncCommand(CliContext context) {
    super(context);
  }

  @Override
  void run(WorkflowClient client, PrintWriter out) {
    if (collections != null && !collections.isEmpty()) {
      resyncCollections(client, out);
    } else if (MirrorStop.running(mirror.untyped(client))) {
      resyncRunning(client, out);
    } else {
      restartToResync(client, out);
    }
  }

  /** The running workflow resyncs in place, carrying its edits, rewrites and memory of hashed paths. */
  private void resyncRunning(WorkflowClient client, PrintWriter out) {
    ResyncAccepted accepted = mirror.workflow(client).resync();
    out.printf("mirror %s: resync started after batch %d: copying every collection again from a new starting"
        + " point, then deleting the rows the copy did not see%s%s; 'mongo-cdc mirror status %s' shows the"
        + " progress%n", mirror.name, accepted.afterBatch(),
        accepted.pendingEdits() == 0 ? "" : "; the " + accepted.pendingEdits() + " pending edit(s) take effect first",
        accepted.fieldRuleRewrite() == null ? ""
            : "; the field rule rewrite under way (" + accepted.fieldRuleRewrite() + ") finishes before the copy",
        mirror.name);
  }

  /**
   * A mirror whose workflow ended starts again from its last configuration. What only the ended
   * run held would be lost: edits it had not applied, a rewrite of rows written before added field
   * rules (those rows would keep the values the rules remove). Such a mirror is refused.
   */
  private void restartToResync(WorkflowClient client, PrintWriter out) {
    MirrorStatus last = mirror.workflow(client).status();
    List<String> lost = new ArrayList<>();
    if (!last.pendingEdits().isEmpty()) {
      lost.add(last.pendingEdits().size() + " accepted edit(s) it had not applied");
    }
    if (last.fieldRuleRewrite() != null) {
      lost.add("the rewrite of rows written before added field rules (" + last.fieldRuleRewrite() + ")");
    }
    if (!lost.isEmpty()) {
      throw new CliException("mirror " + mirror.name + ": its workflow ended with " + String.join(" and ", lost)
          + ", which a restarted workflow would not carry; create the mirror again with the settings it should have"
          + " (mongo-cdc mirror create), which copies and rewrites what it finds", ExitCodes.INVALID);
    }
    CdcFlowWorkflow workflow = client.newWorkflowStub(CdcFlowWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(mirror.workflowId())
        .setTaskQueue(mirror.temporal.taskQueue())
        .build());
    String runId = WorkflowClient.start(workflow::run, CdcFlowInput.resynced(last.config())).getRunId();
    out.printf("mirror %s: resync started (workflow %s, run %s): copying every collection again from a new "
        + "starting point, then deleting the rows the copy did not see; 'mongo-cdc mirror status %s' shows the "
        + "progress%n", mirror.name, mirror.workflowId(), runId, mirror.name);
  }

  private void resyncCollections(WorkflowClient client, PrintWriter out) {
    EditResult result = mirror.workflow(client).edit(Map.of(MirrorSettings.RESYNC_COLLECTIONS.name(), collections));
    out.printf("mirror %s: copying %s again from the committed checkpoint from batch %d on, beside the batches"
        + ", so every collection keeps streaming; then deleting their rows the copy did not see;"
        + " 'mongo-cdc mirror status %s' shows the progress%n", mirror.name, String.join(", ", collections),
        result.appliesFromBatch(), mirror.name);
  }
}
