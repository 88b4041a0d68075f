package io.mongocdc.workflows;

import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.SnapshotPartitionRequest;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.Deque;

/**
 * The copier that runs beside the batches ({@link FlowState#copiesStream}): in a workflow thread
 * of its own, it plans the pending snapshots and copies their partitions while the mirror's loop
 * goes on with its turns, so every collection's changes, the copied ones' included, keep being
 * applied. A copied row carries its snapshot's start, older than any change the batches apply,
 * so whichever of the two writes a row last, the newer change wins.
 *
 * <p>The loop controls it between turns: {@link CopyBesideBatchesStep} starts it. Pending edits and
 * a resync (whatever changes what a partition writes) make it start no more partitions and wait
 * for the ones under way, while the batches go on; continue-as-new and the workflow's end wait for
 * them with the batches stopped ({@link #drain}). The operator's {@code cancelInFlight} cancels
 * them, and so does a copier that waited too long for them ({@link #cancelIfHeldTooLong}); they
 * are copied again, and rows they committed keep their position, which the copy writes again as
 * it was. A failure ends the copier and is thrown by the next turn, which backs off as for a
 * failed batch.
 */
final class CopiesBesideBatches {

  /**
   * The copier waits this many batches for the partitions under way when it holds (an edit or a
   * resync waits), then cancels them: each batch adds about a dozen events to the history.
   */
  static final int BATCHES_BEFORE_CANCEL = 200;

  private final Flow flow;
  private final PartitionCopies partitions;
  private CancellationScope scope;
  /** The copier's thread; null before the first start. */
  private Promise<Void> copier;
  /** No partition starts: the run is about to continue as new, or the workflow ends ({@link #drain}). */
  private boolean holding;
  /** The partitions under way were cancelled (the operator, or a copier held too long): no failure. */
  private boolean cancelled;
  /** {@code batchesThisRun} when the copier began to hold with partitions under way; -1 when it does not. */
  private long heldSinceBatch = -1;
  /** The failure that ended the copier, until a turn throws it. */
  private RuntimeException failure;

  CopiesBesideBatches(Flow flow) {
    this.flow = flow;
    this.partitions = new PartitionCopies(flow);
  }

  /** Whether partitions are being planned or copied. */
  boolean running() {
    return copier != null && !copier.isCompleted();
  }

  /** Whether the copier may start: it is not running, and nothing holds it. */
  boolean mayStart() {
    return !running() && !holding;
  }

  /** Starts copying the pending snapshots, in a thread of its own; returns at once. */
  void start() {
    cancelled = false;
    scope = Workflow.newCancellationScope(() -> copier = Async.procedure(this::copy));
    scope.run();
  }

  private void copy() {
    RuntimeException failed;
    try {
      Deque<SnapshotPartitionRequest> queue = partitions.plan();
      failed = partitions.copy(queue, Integer.MAX_VALUE, this::holds);
    } catch (ActivityFailure | CanceledFailure e) {
      failed = e;
    }
    if (failed != null && !cancelled) {
      failure = failed;
    }
    if (flow.state.phase == MirrorPhase.SNAPSHOTTING && !flow.state.copies.pending()
        && flow.carried.sweepPending.isEmpty()) {
      // The last copy ended during a batch: status says so now; the catalog hears at the next step.
      flow.state.phase = MirrorPhase.RUNNING;
    }
  }

  /**
   * Whether no partition may start: the copier drains, or an edit or a resync waits. A partition
   * under way writes by the settings it started with, so edits and a resync take effect once none
   * is under way; the batches go on meanwhile.
   */
  private boolean holds() {
    return holding || flow.state.edits.count() > 0 || flow.carried.resyncNeeded;
  }

  /**
   * The failure that ended the copier, if any, forgotten once taken: the turn that takes it throws
   * it.
   */
  RuntimeException takeFailure() {
    RuntimeException taken = failure;
    failure = null;
    return taken;
  }

  /**
   * Starts no more partitions and waits until the ones under way finished, then lets the copier
   * start again: before the run continues as new (the batches wait for at most one partition's
   * copy, once a run; letting them go on made runs that continue as new after every batch spin
   * through thousands of batches while a partition was stuck) and before the workflow ends.
   */
  void drain() {
    holding = true;
    Workflow.await(() -> !running());
    holding = false;
  }

  /** The operator cancelled the work in flight: the partitions under way are copied again. */
  void cancelByOperator() {
    cancel("cancelled by the operator");
  }

  /**
   * Asked each turn: partitions that the copier has waited for, starting no more, during {@link
   * #BATCHES_BEFORE_CANCEL} batches (a read stuck in the source) are cancelled and copied again
   * later, and the loop waits until they ended (their heartbeat timeout at most), so the run can
   * continue as new and edits take effect, and the batches meanwhile do not grow the history
   * without bound.
   */
  void cancelIfHeldTooLong(long batchesThisRun) {
    if (!running() || !holds()) {
      heldSinceBatch = -1;
    } else if (heldSinceBatch < 0) {
      heldSinceBatch = batchesThisRun;
    } else if (batchesThisRun - heldSinceBatch >= BATCHES_BEFORE_CANCEL) {
      cancel("waited " + BATCHES_BEFORE_CANCEL + " batches for it");
      // No more batches until the cancellation has ended them: each would grow the history.
      Workflow.await(() -> !running());
    }
  }

  private void cancel(String reason) {
    if (running() && !cancelled) {
      cancelled = true;
      scope.cancel(reason);
    }
  }
}
