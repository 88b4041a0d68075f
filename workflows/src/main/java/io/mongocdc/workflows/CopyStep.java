package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.SnapshotPartitionRequest;
import java.util.Deque;

/**
 * Copies the collections' existing documents (snapshots) as histories from before {@link
 * CopyTurnsStep#COPY_WHILE_STREAMING_CHANGE} did, {@code parallelPartitions} partitions at a time:
 * all of them before any batch for a set-up's or a resync's copy; one round, then a batch, for
 * copies that take turns with the batches ({@link FlowState#copiesTakeTurns}). Copies since then
 * are made beside the batches ({@link CopiesBesideBatches}).
 */
final class CopyStep implements Step {

  private final Flow flow;
  private final CarriedState carried;
  private final PartitionCopies partitions;
  /** {@code batchesThisRun} at the last round: a round that takes turns waits for a batch after it. */
  private long copiedAtBatch = -1;

  CopyStep(Flow flow) {
    this.flow = flow;
    this.carried = flow.carried;
    this.partitions = new PartitionCopies(flow);
  }

  @Override
  public boolean due() {
    boolean turn = flow.state.batchesThisRun > copiedAtBatch;
    return flow.state.copies.pending() && !flow.state.copiesStream && (!flow.state.copiesTakeTurns || turn);
  }

  @Override
  public void run() {
    flow.enter(MirrorPhase.SNAPSHOTTING);
    copy(flow.state.copiesTakeTurns ? carried.config.settings().snapshot().parallelPartitions() : Integer.MAX_VALUE);
    copiedAtBatch = flow.state.batchesThisRun;
  }

  /**
   * Copies the pending partitions, starting {@code atMost} of them. The first failure is thrown
   * once every running copy has ended, so none outlives the step.
   */
  private void copy(int atMost) {
    Deque<SnapshotPartitionRequest> queue = partitions.plan();
    RuntimeException[] failure = new RuntimeException[1];
    flow.inFlight.run(() -> failure[0] = partitions.copy(queue, atMost, () -> false));
    if (failure[0] != null) {
      throw failure[0];
    }
    // A cancellation that came too late to stop a copy: every partition ended, none was cancelled.
    flow.inFlight.takeOperatorCancel();
  }
}
