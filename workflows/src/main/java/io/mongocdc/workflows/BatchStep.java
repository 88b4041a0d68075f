package io.mongocdc.workflows;

import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.CommitCheckpointRequest;
import io.mongocdc.workflows.model.CommitResult;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.PullRecordsRequest;
import io.temporal.workflow.Workflow;

/**
 * The batch: PullRecords from the committed checkpoint, then CommitCheckpoint of what it
 * delivered. Always due: it is the last step, what a turn does when nothing else is.
 */
final class BatchStep implements Step {

  /**
   * While a copy takes turns with the batches (one round of {@code parallelPartitions} partitions,
   * then a batch), a batch runs at most this long, or its own maximum if shorter: a long maximum
   * batch duration would otherwise stretch every turn of the copy. Rows still become visible within
   * the batch ({@code maxVisibilityDelay}), so a shorter batch costs the destination's freshness
   * nothing.
   */
  static final int TURN_SECONDS = 10;

  private final Flow flow;
  private final CarriedState carried;

  BatchStep(Flow flow) {
    this.flow = flow;
    this.carried = flow.carried;
  }

  @Override
  public boolean due() {
    return true;
  }

  @Override
  public void run() {
    // While copies are made beside it, the mirror is still snapshotting, as status says.
    flow.enter(flow.state.copiesStream && flow.state.copies.pending() ? MirrorPhase.SNAPSHOTTING : MirrorPhase.RUNNING);
    long batchId = carried.lastBatchId + 1;
    MirrorConfig config = carried.config;
    if (flow.state.copiesTakeTurns && config.settings().maxBatchDurationSeconds() > TURN_SECONDS) {
      config = config.withSettings(config.settings().toBuilder().maxBatchDurationSeconds(TURN_SECONDS).build());
    }
    PullRecordsRequest request = new PullRecordsRequest(config, batchId, carried.checkpoint);
    BatchOutcome[] outcome = new BatchOutcome[1];
    flow.state.batchInFlight = batchId;
    try {
      flow.inFlight.run(() -> outcome[0] = flow.activities.pullRecords(request));
    } finally {
      flow.state.batchInFlight = 0;
    }
    // A cancellation that came too late to stop the batch: it completed, so commit it.
    flow.inFlight.takeOperatorCancel();
    // The commit is not cancellable: records were delivered, and the catalog should know.
    CommitResult result = flow.activities.commitCheckpoint(new CommitCheckpointRequest(
        carried.config.name(), batchId, outcome[0].checkpoint(), outcome[0].figures()));
    flow.state.committed(outcome[0], result.stored(), Workflow.currentTimeMillis());
  }
}
