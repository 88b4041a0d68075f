package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.SnapshotPartitionCopied;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotProgress;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The copies part of the workflow's state: every collection's snapshot, the sweeps that follow a
 * resync's copy, the plans to make afresh, and (in histories from before copies were made beside
 * the batches) which copies take turns with the batches. Plain
 * deterministic code over {@link CarriedState}, no Temporal calls.
 */
final class Copies {

  private final CarriedState carried;
  /** Partitions copied by this run: a run copies a bounded number, then continues as new. */
  long partitionsThisRun;

  Copies(CarriedState carried) {
    this.carried = carried;
  }

  /** Snapshots of {@code collections} start from the current checkpoint. */
  void start(List<String> collections) {
    collections.forEach(
        collection -> carried.snapshots.add(SnapshotProgress.pending(collection, carried.checkpoint)));
  }

  boolean pending() {
    return carried.snapshots.stream().anyMatch(s -> !s.done());
  }

  /** Whether {@code collection} has a snapshot still to copy. */
  boolean beingCopied(String collection) {
    return carried.snapshots.stream().anyMatch(s -> !s.done() && s.collection().equals(collection));
  }

  /** {@code plan} was made or read at workflow time {@code nowMillis}. */
  void planned(SnapshotPlan plan, long nowMillis) {
    carried.freshSnapshotPlans.remove(plan.collection());
    replace(plan.collection(), progress -> progress.planned(plan, nowMillis));
  }

  /** {@code copied} ended at workflow time {@code nowMillis}. */
  void partitionCopied(SnapshotPartitionCopied copied, long nowMillis) {
    replace(copied.collection(), progress -> progress.copied(copied, nowMillis));
    carried.totals = carried.totals.plusDrift(copied.columnDrift());
    partitionsThisRun++;
  }

  private void replace(String collection, UnaryOperator<SnapshotProgress> change) {
    for (int i = 0; i < carried.snapshots.size(); i++) {
      if (carried.snapshots.get(i).collection().equals(collection) && !carried.snapshots.get(i).done()) {
        carried.snapshots.set(i, change.apply(carried.snapshots.get(i)));
        return;
      }
    }
  }

  /**
   * {@code collections} are copied again from the current checkpoint (their earlier snapshots
   * replaced, their plans made afresh), taking turns with the batches, then their rows the copy
   * did not see are swept, as a resync does. A collection with a snapshot filter is not swept: the
   * copy does not see the documents the filter leaves out, whose rows the change stream wrote and
   * must keep.
   */
  void copyAgain(List<String> collections) {
    if (collections.isEmpty()) {
      return;
    }
    carried.snapshots.removeIf(s -> collections.contains(s.collection()));
    start(collections);
    copyBetweenBatches(collections);
    planAfresh(collections);
    addAbsent(carried.sweepPending, withoutSnapshotFilter(collections));
  }

  /**
   * A resync from the current checkpoint: the collections are copied again (their earlier
   * snapshots are replaced), then the rows the copy did not see are swept from the tables of
   * {@code sweep} (the copied collections, and any the source no longer has).
   */
  void resyncFromCheckpoint(List<String> collections, List<String> sweep) {
    carried.snapshots.removeIf(s -> collections.contains(s.collection()));
    carried.copiesBetweenBatches.clear();
    start(collections);
    planAfresh(collections);
    carried.sweepPending.clear();
    carried.sweepPending.addAll(sweep);
  }

  /**
   * The next plans of {@code collections} are made afresh: a start that has not moved since their
   * last copy would otherwise find that copy's finished plan and read nothing.
   */
  void planAfresh(List<String> collections) {
    addAbsent(carried.freshSnapshotPlans, collections);
  }

  /**
   * Of {@code collections}, those without a snapshot filter: the ones a sweep may follow a copy of.
   * A filtered copy does not see the documents the filter leaves out, whose rows the change stream
   * wrote and must keep.
   */
  List<String> withoutSnapshotFilter(List<String> collections) {
    Map<String, String> filters = carried.config.settings().snapshot().filters();
    return collections.stream().filter(c -> !filters.containsKey(c)).toList();
  }

  /**
   * The collections whose history is on now and was not in {@code before} (the history
   * collections when the edits applied began), but for those being copied already.
   */
  List<String> historyTurnedOnSince(List<String> before) {
    return carried.config.settings().history().collections().stream()
        .filter(c -> !before.contains(c) && !beingCopied(c)).toList();
  }

  void copyBetweenBatches(List<String> collections) {
    addAbsent(carried.copiesBetweenBatches, collections);
  }

  /** Appends to {@code list}, in their order, the {@code collections} it does not hold yet. */
  private static void addAbsent(List<String> list, List<String> collections) {
    for (String collection : collections) {
      if (!list.contains(collection)) {
        list.add(collection);
      }
    }
  }

  /**
   * Whether every copy still to make was asked for by an edit of the running mirror: its rounds of
   * partitions then take turns with the batches, which go on streaming every collection.
   */
  boolean goBetweenBatches() {
    return pending() && carried.snapshots.stream()
        .filter(s -> !s.done()).allMatch(s -> carried.copiesBetweenBatches.contains(s.collection()));
  }

  /** Once every copy and sweep is done, no collection's copy takes turns with the batches. */
  void forgetFinishedCopiesBetweenBatches() {
    if (!pending() && carried.sweepPending.isEmpty()) {
      carried.copiesBetweenBatches.clear();
    }
  }

  /**
   * The position a sweep of {@code collection} deletes the rows older than: where its copy
   * started. For a copy made while batches waited that is the checkpoint still; one that took
   * turns with the batches started at its own snapshot's position, which the checkpoint has passed;
   * a resync's copy made beside the batches, at the resync's start.
   */
  Checkpoint sweepPosition(String collection) {
    if (carried.copiesBetweenBatches.contains(collection)) {
      for (SnapshotProgress snapshot : carried.snapshots) {
        if (snapshot.collection().equals(collection)) {
          return snapshot.position();
        }
      }
    }
    // A resync's copy made beside the batches: the checkpoint has moved on from the resync's start.
    return carried.resyncStart != null ? carried.resyncStart : carried.checkpoint;
  }
}
