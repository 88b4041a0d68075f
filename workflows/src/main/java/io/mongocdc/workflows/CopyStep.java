package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.SnapshotPartitionCopied;
import io.mongocdc.workflows.model.SnapshotPartitionRequest;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotPlanRequest;
import io.mongocdc.workflows.model.SnapshotProgress;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;

/**
 * Copies the collections' existing documents (snapshots), {@code parallelPartitions} partitions
 * at a time: all of them before any batch for a set-up's or a resync's copy; one round, then a
 * batch, for copies that take turns with the batches ({@link FlowState#copiesTakeTurns}).
 */
final class CopyStep implements Step {

  /** A run copies at most this many partitions, then continues as new (each adds ~6 events). */
  static final int PARTITIONS_PER_RUN = 500;

  private final Flow flow;
  private final CarriedState carried;
  /** {@code batchesThisRun} at the last round: a round that takes turns waits for a batch after it. */
  private long copiedAtBatch = -1;

  CopyStep(Flow flow) {
    this.flow = flow;
    this.carried = flow.carried;
  }

  @Override
  public boolean due() {
    boolean turn = flow.state.batchesThisRun > copiedAtBatch;
    return flow.state.copies.pending() && (!flow.state.copiesTakeTurns || turn);
  }

  @Override
  public void run() {
    flow.enter(MirrorPhase.SNAPSHOTTING);
    copy(flow.state.copiesTakeTurns ? carried.config.settings().snapshot().parallelPartitions() : Integer.MAX_VALUE);
    copiedAtBatch = flow.state.batchesThisRun;
  }

  /**
   * Plans what is not planned (after continue-as-new or a failure the catalog says which
   * partitions are done), then copies the pending partitions, {@code parallelPartitions} at a
   * time, starting {@code atMost} of them. A pause or terminate stops starting new ones; the ones
   * running finish. The first failure is thrown once every running copy has ended, so none
   * outlives the step.
   */
  private void copy(int atMost) {
    Deque<SnapshotPartitionRequest> queue = new ArrayDeque<>();
    for (SnapshotProgress progress : List.copyOf(carried.snapshots)) {
      if (progress.done()) {
        continue;
      }
      SnapshotPlan plan = flow.activities.planSnapshot(new SnapshotPlanRequest(carried.config, progress.collection(),
          progress.position(), carried.freshSnapshotPlans.contains(progress.collection())));
      flow.state.copies.planned(plan, Workflow.currentTimeMillis());
      for (int partition : plan.pendingPartitions()) {
        queue.add(new SnapshotPartitionRequest(carried.config, progress.collection(), partition, progress.position()));
      }
    }
    RuntimeException[] failure = new RuntimeException[1];
    flow.inFlight.run(() -> {
      List<Promise<PartitionAttempt>> running = new ArrayList<>();
      int parallel = carried.config.settings().snapshot().parallelPartitions();
      int started = 0;
      while (!running.isEmpty() || (!queue.isEmpty() && started < atMost && failure[0] == null && !shouldStop())) {
        while (running.size() < parallel && !queue.isEmpty() && started < atMost && failure[0] == null
            && !shouldStop()) {
          started++;
          SnapshotPartitionRequest request = queue.poll();
          running.add(flow.activities.copySnapshotPartition(request)
              .handle((copied, error) -> new PartitionAttempt(copied, error)));
        }
        Promise.anyOf(running).get();
        for (Iterator<Promise<PartitionAttempt>> it = running.iterator(); it.hasNext(); ) {
          Promise<PartitionAttempt> promise = it.next();
          if (promise.isCompleted()) {
            it.remove();
            PartitionAttempt attempt = promise.get();
            if (attempt.error() != null) {
              failure[0] = failure[0] == null ? attempt.error() : failure[0];
            } else {
              flow.state.copies.partitionCopied(attempt.copied(), Workflow.currentTimeMillis());
              flow.state.oplogRead(attempt.copied().oplog());
            }
          }
        }
      }
    });
    if (failure[0] != null) {
      throw failure[0];
    }
    // A cancellation that came too late to stop a copy: every partition ended, none was cancelled.
    flow.inFlight.takeOperatorCancel();
  }

  private boolean shouldStop() {
    return carried.paused || flow.state.terminateRequested
        || flow.state.copies.partitionsThisRun >= PARTITIONS_PER_RUN
        || Workflow.getInfo().isContinueAsNewSuggested();
  }

  /** How one partition's copy ended: copied, or the failure. */
  private record PartitionAttempt(SnapshotPartitionCopied copied, RuntimeException error) {}
}
