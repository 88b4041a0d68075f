package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
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
import java.util.function.BooleanSupplier;

/**
 * Plans the pending snapshots and copies their partitions, {@code parallelPartitions} at a time:
 * the work of {@link CopyStep} (batches wait, or take turns) and of {@link CopiesBesideBatches}
 * (batches go on meanwhile). Not a step: both call it, in the same command order.
 */
final class PartitionCopies {

  /** A run copies at most this many partitions, then continues as new (each adds ~6 events). */
  static final int PARTITIONS_PER_RUN = 500;

  private final Flow flow;
  private final CarriedState carried;

  PartitionCopies(Flow flow) {
    this.flow = flow;
    this.carried = flow.carried;
  }

  /**
   * Plans what is not planned (after continue-as-new or a failure the catalog says which
   * partitions are done), then queues every pending partition.
   */
  Deque<SnapshotPartitionRequest> plan() {
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
    return queue;
  }

  /**
   * Copies the queued partitions, {@code parallelPartitions} at a time, starting {@code atMost} of
   * them and none once {@code stop} says so (the ones running finish). Every copy that started
   * has ended when this returns.
   *
   * @return the first failure, or null if none failed
   */
  RuntimeException copy(Deque<SnapshotPartitionRequest> queue, int atMost, BooleanSupplier stop) {
    RuntimeException failure = null;
    List<Promise<PartitionAttempt>> running = new ArrayList<>();
    int parallel = carried.config.settings().snapshot().parallelPartitions();
    int started = 0;
    while (!running.isEmpty() || (!queue.isEmpty() && started < atMost && failure == null && !stopping(stop))) {
      while (running.size() < parallel && !queue.isEmpty() && started < atMost && failure == null
          && !stopping(stop)) {
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
            failure = failure == null ? attempt.error() : failure;
          } else {
            flow.state.copies.partitionCopied(attempt.copied(), Workflow.currentTimeMillis());
            flow.state.oplogRead(attempt.copied().oplog());
          }
        }
      }
    }
    return failure;
  }

  /** A pause, a terminate, a full run or {@code stop}: no partition starts. */
  private boolean stopping(BooleanSupplier stop) {
    return carried.paused || flow.state.terminateRequested
        || flow.state.copies.partitionsThisRun >= PARTITIONS_PER_RUN
        || Workflow.getInfo().isContinueAsNewSuggested() || stop.getAsBoolean();
  }

  /** How one partition's copy ended: copied, or the failure. */
  private record PartitionAttempt(SnapshotPartitionCopied copied, RuntimeException error) {}
}
