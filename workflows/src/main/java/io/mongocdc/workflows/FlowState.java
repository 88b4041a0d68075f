package io.mongocdc.workflows;

import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.BatchFreshness;
import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.JsonText;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.OplogSpan;
import io.mongocdc.workflows.model.RejectedEdit;
import io.mongocdc.workflows.model.SnapshotPartitionCopied;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotProgress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The mutable state of one workflow run: what continue-as-new carries ({@link CarriedState}) plus
 * what only this run needs. Plain deterministic code, no Temporal calls, so it is easy to test.
 */
final class FlowState {

  /** Status keeps this many rejected edits and signals; older ones drop off. */
  static final int REJECTED_EDITS_KEPT = 10;

  /** What continue-as-new carries: changed in place, handed over whole by {@link #carry}. */
  final CarriedState carried;

  // This run only.
  MirrorPhase phase = MirrorPhase.SETTING_UP;
  boolean terminateRequested;
  /** Set by resume: ends a backoff wait early. */
  boolean retryNow;
  long batchInFlight;
  long batchesThisRun;
  /** The source's oplog span at the last batch, if the source reports it. */
  OplogSpan oplog;
  long snapshotPartitionsThisRun;

  FlowState(CarriedState carried) {
    this.carried = carried;
  }

  /**
   * The carried state, counted as the next run's: the last thing a run does, as it continues as
   * new.
   */
  CarriedState carry() {
    carried.run++;
    return carried;
  }

  /** The settings the next batch will use: the current ones with every pending edit applied. */
  MirrorSettings nextSettings() {
    MirrorSettings settings = carried.config.settings();
    for (EditRequest edit : carried.pendingEdits) {
      settings = settings.apply(edit);
    }
    return settings;
  }

  /** The collections pending edits add, in the order they were asked for. */
  List<String> collectionsToAdd() {
    return collectionsOfPendingEdits(EditRequest::addCollections);
  }

  /** The collections pending edits copy again, in the order they were asked for. */
  List<String> collectionsToResync() {
    return collectionsOfPendingEdits(EditRequest::resyncCollections);
  }

  /** One collection-list field over the pending edits, each collection once, in the order asked. */
  private List<String> collectionsOfPendingEdits(Function<EditRequest, List<String>> field) {
    Set<String> collections = new LinkedHashSet<>();
    for (EditRequest edit : carried.pendingEdits) {
      List<String> named = field.apply(edit);
      if (named != null) {
        collections.addAll(named);
      }
    }
    return List.copyOf(collections);
  }

  /** The mirror as the next step will run it: every pending edit applied. */
  MirrorConfig nextConfig() {
    return withEdit(null);
  }

  private MirrorConfig withEdit(EditRequest extra) {
    List<String> collections = new ArrayList<>(carried.config.collections());
    collectionsToAdd().forEach(collections::add);
    MirrorSettings settings = nextSettings();
    if (extra != null) {
      if (extra.addCollections() != null) {
        collections.addAll(extra.addCollections());
      }
      settings = settings.apply(extra);
    }
    return carried.config.withCollections(collections).withSettings(settings);
  }

  /**
   * Checks an edit, its JSON body as received, against the mirror it would apply to.
   *
   * @throws io.mongocdc.workflows.model.InvalidEditException naming every problem
   * @throws IllegalStateException if the mirror is terminating
   */
  EditRequest checkEdit(Object body) {
    if (terminateRequested || phase == MirrorPhase.TERMINATED) {
      throw new IllegalStateException(
          "mirror '" + carried.config.name() + "' is terminating; edits are no longer accepted");
    }
    EditRequest edit = EditRequest.fromJson(body);
    List<String> problems = new ArrayList<>(addedCollectionProblems(edit));
    problems.addAll(resyncProblems(edit));
    problems.addAll(nextConfig().settings().columns().editProblems(edit));
    problems.addAll(nextConfig().settings().fieldRules().editProblems(edit));
    problems.addAll(fieldRuleEditProblems(edit));
    MirrorConfig next = withEdit(edit);
    next.problems().stream()
        // Only what the edit can change: the rest of the configuration was valid already.
        .filter(p -> p.startsWith("settings.") || p.startsWith("collections"))
        .map(p -> p.startsWith("settings.") ? p.substring("settings.".length()) : p)
        .forEach(problems::add);
    if (!problems.isEmpty()) {
      throw new io.mongocdc.workflows.model.InvalidEditException(problems);
    }
    return edit;
  }

  /**
   * Field rules change only while nothing copies and no rewrite runs: a copy or a rewrite under
   * way would write some rows under the old rules and some under the new, and the rewrite of the
   * new rules must reach exactly the rows written before them. A path hashed before cannot be
   * hashed again: rows written then hold hashes, which its rewrite would hash a second time.
   */
  private List<String> fieldRuleEditProblems(EditRequest edit) {
    if (!edit.changesFieldRules()) {
      return List.of();
    }
    List<String> problems = new ArrayList<>();
    String busy = !carried.fieldRuleRewrites.isEmpty()
        ? "the rows written before the last added rules are being rewritten (" + carried.fieldRuleRewrites.get(0).describe() + ")"
        : snapshotPending() ? "a snapshot or copy is running"
        : !carried.sweepPending.isEmpty() ? "a copy is deleting the rows it did not see"
        : carried.resyncNeeded ? "a resync is starting" : null;
    if (busy != null) {
      problems.add("fieldRules: cannot change while " + busy + "; send the edit again when status shows it done");
    }
    if (edit.fieldRules() != null) {
      FieldRuleSettings next = nextConfig().settings().fieldRules();
      edit.fieldRules().forEach((collection, rules) -> {
        for (String path : rules.hash()) {
          if (!next.of(collection).hash().contains(path)
              && carried.hashedPaths.getOrDefault(collection, List.of()).contains(path)) {
            problems.add("fieldRules." + collection + ": '" + path + "' was hashed before, so rows written then hold"
                + " hashes that a rewrite would hash again; only a new mirror can hash it again");
          }
        }
      });
    }
    return problems;
  }

  /** Remembers every path {@code rules} hash (see {@link CarriedState#hashedPaths}). */
  void rememberHashedPaths(FieldRuleSettings rules) {
    rules.collections().forEach((collection, each) -> {
      if (!each.hash().isEmpty()) {
        java.util.TreeSet<String> paths = new java.util.TreeSet<>(carried.hashedPaths.getOrDefault(collection, List.of()));
        paths.addAll(each.hash());
        carried.hashedPaths.put(collection, List.copyOf(paths));
      }
    });
  }

  private List<String> addedCollectionProblems(EditRequest edit) {
    if (edit.addCollections() == null) {
      return List.of();
    }
    List<String> problems = new ArrayList<>();
    if (carried.config.collections().isEmpty()) {
      problems.add("addCollections: this mirror replicates every collection of " + carried.config.sourceDatabase()
          + " already");
      return problems;
    }
    Set<String> seen = new LinkedHashSet<>(carried.config.collections());
    seen.addAll(collectionsToAdd());
    if (edit.addCollections().isEmpty()) {
      problems.add("addCollections: name at least one collection");
    }
    for (String collection : edit.addCollections()) {
      if (collection == null || collection.isBlank()) {
        problems.add("addCollections: collection names must not be blank");
      } else if (!seen.add(collection)) {
        problems.add("addCollections: '" + collection + "' is already replicated or being added");
      }
    }
    return problems;
  }

  /**
   * A collection copied again must be one the mirror replicates (for a mirror of every collection,
   * the workflow asks the source when the edit applies) and not one being copied already.
   */
  private List<String> resyncProblems(EditRequest edit) {
    if (edit.resyncCollections() == null) {
      return List.of();
    }
    List<String> problems = new ArrayList<>();
    if (edit.resyncCollections().isEmpty()) {
      problems.add("resyncCollections: name at least one collection");
    }
    Set<String> copying = new LinkedHashSet<>(collectionsToAdd());
    copying.addAll(collectionsToResync());
    for (String collection : edit.resyncCollections()) {
      if (collection == null || collection.isBlank()) {
        problems.add("resyncCollections: collection names must not be blank");
      } else if (!carried.config.collections().isEmpty() && !carried.config.collections().contains(collection)) {
        problems.add("resyncCollections: '" + collection + "' is not a collection of this mirror ("
            + String.join(", ", carried.config.collections()) + ")");
      } else if (copying.contains(collection) || beingCopied(collection)) {
        problems.add("resyncCollections: '" + collection + "' is being copied already");
      }
    }
    return problems;
  }

  void reject(long nowMillis, String request, String reason) {
    carried.rejectedEdits.add(new RejectedEdit(nowMillis, request, reason));
    while (carried.rejectedEdits.size() > REJECTED_EDITS_KEPT) {
      carried.rejectedEdits.remove(0);
    }
  }

  /** Whether a pending edit adds, removes or indexes typed columns. */
  boolean pendingEditsChangeColumns() {
    return carried.pendingEdits.stream().anyMatch(EditRequest::changesColumns);
  }

  /** Per collection, the typed columns pending edits remove with {@code dropColumnData}. */
  Map<String, List<String>> columnsToDrop() {
    Map<String, List<String>> drop = new TreeMap<>();
    for (EditRequest edit : carried.pendingEdits) {
      if (Boolean.TRUE.equals(edit.dropColumnData()) && edit.removeColumns() != null) {
        edit.removeColumns().forEach((collection, names) ->
            drop.computeIfAbsent(collection, c -> new ArrayList<>()).addAll(names));
      }
    }
    return drop;
  }

  /**
   * Pending edits take effect: called between steps (batches, snapshot rounds). A collection
   * added while snapshots are on is snapshotted from the committed checkpoint before the next
   * batch; the batches after it replay its changes from there.
   */
  void applyPendingEdits() {
    applyPendingEdits(carried.pendingEdits.size());
  }

  /** The first {@code count} pending edits take effect, in arrival order; the later ones stay pending. */
  void applyPendingEdits(int count) {
    if (count > 0) {
      List<EditRequest> later = List.copyOf(carried.pendingEdits.subList(count, carried.pendingEdits.size()));
      carried.pendingEdits.subList(count, carried.pendingEdits.size()).clear();
      List<String> added = collectionsToAdd();
      List<String> resynced = collectionsToResync();
      carried.config = nextConfig();
      carried.pendingEdits.clear();
      carried.pendingEdits.addAll(later);
      if (carried.config.settings().snapshot().enabled()) {
        startSnapshots(added);
        copyBetweenBatches(added);
      }
      copyAgain(resynced);
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
    startSnapshots(collections);
    copyBetweenBatches(collections);
    planAfresh(collections);
    addAbsent(carried.sweepPending, withoutSnapshotFilter(collections));
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

  private void copyBetweenBatches(List<String> collections) {
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
  boolean pendingCopiesGoBetweenBatches() {
    return snapshotPending() && carried.snapshots.stream()
        .filter(s -> !s.done()).allMatch(s -> carried.copiesBetweenBatches.contains(s.collection()));
  }

  /**
   * The position a sweep of {@code collection} deletes the rows older than: where its copy
   * started. For a copy made while batches waited that is the checkpoint still; one that took
   * turns with the batches started at its own snapshot's position, which the checkpoint has passed.
   */
  Checkpoint sweepPosition(String collection) {
    if (carried.copiesBetweenBatches.contains(collection)) {
      for (SnapshotProgress snapshot : carried.snapshots) {
        if (snapshot.collection().equals(collection)) {
          return snapshot.position();
        }
      }
    }
    return carried.checkpoint;
  }

  /** Once every copy and sweep is done, no collection's copy takes turns with the batches. */
  void forgetFinishedCopiesBetweenBatches() {
    if (!snapshotPending() && carried.sweepPending.isEmpty()) {
      carried.copiesBetweenBatches.clear();
    }
  }

  /** Whether {@code collection} has a snapshot still to copy. */
  boolean beingCopied(String collection) {
    return carried.snapshots.stream().anyMatch(s -> !s.done() && s.collection().equals(collection));
  }

  int pendingEditCount() {
    return carried.pendingEdits.size();
  }

  /**
   * The added collections could not be set up (the source or destination refused them): pending
   * edits lose their {@code addCollections}, and the refusal is kept with the rejected edits.
   */
  void rejectAddedCollections(long nowMillis, String reason) {
    List<String> added = collectionsToAdd();
    List<EditRequest> kept = new ArrayList<>();
    for (EditRequest edit : carried.pendingEdits) {
      EditRequest settings = edit.settingsOnly();
      if (!settings.changesNothing()) {
        kept.add(settings);
      }
    }
    carried.pendingEdits.clear();
    carried.pendingEdits.addAll(kept);
    reject(nowMillis, JsonText.of(Map.of("addCollections", added)), reason);
  }

  /**
   * Collections a pending {@code resyncCollections} names that the source does not have (a
   * mirror of every collection): the edits lose them, and the refusal is kept with the rejected
   * edits.
   */
  void rejectResyncOf(List<String> missing, long nowMillis) {
    List<EditRequest> kept = new ArrayList<>();
    for (EditRequest edit : carried.pendingEdits) {
      EditRequest next = edit;
      if (edit.resyncCollections() != null) {
        List<String> left = edit.resyncCollections().stream().filter(c -> !missing.contains(c)).toList();
        next = edit.with(MirrorSettings.RESYNC_COLLECTIONS, left.isEmpty() ? null : left);
      }
      if (!next.changesNothing()) {
        kept.add(next);
      }
    }
    carried.pendingEdits.clear();
    carried.pendingEdits.addAll(kept);
    reject(nowMillis, JsonText.of(Map.of("resyncCollections", missing)),
        "the source database " + carried.config.sourceDatabase() + " has no collection " + String.join(", ", missing));
  }

  /**
   * A resync from the current checkpoint: the collections are copied again (their earlier
   * snapshots are replaced), then the rows the copy did not see are swept from the tables of
   * {@code sweep} (the copied collections, and any the source no longer has).
   */
  void resyncFromCheckpoint(List<String> collections, List<String> sweep) {
    carried.snapshots.removeIf(s -> collections.contains(s.collection()));
    carried.copiesBetweenBatches.clear();
    startSnapshots(collections);
    planAfresh(collections);
    carried.sweepPending.clear();
    carried.sweepPending.addAll(sweep);
  }

  /** True if {@code autoResync} may act now: never yet, or a batch committed since it last did. */
  boolean mayAutoResync() {
    return carried.autoResyncedAtMillis == null
        || (carried.committedAtMillis != null && carried.committedAtMillis > carried.autoResyncedAtMillis);
  }

  /** Snapshots of {@code collections} start from the current checkpoint. */
  void startSnapshots(List<String> collections) {
    collections.forEach(
        collection -> carried.snapshots.add(SnapshotProgress.pending(collection, carried.checkpoint)));
  }

  boolean snapshotPending() {
    return carried.snapshots.stream().anyMatch(s -> !s.done());
  }

  void snapshotPlanned(SnapshotPlan plan) {
    carried.freshSnapshotPlans.remove(plan.collection());
    replaceSnapshot(plan.collection(), progress -> progress.planned(plan));
  }

  void snapshotPartitionCopied(SnapshotPartitionCopied copied) {
    replaceSnapshot(copied.collection(), progress -> progress.copied(copied));
    carried.totals = carried.totals.plusDrift(copied.columnDrift());
    snapshotPartitionsThisRun++;
  }

  private void replaceSnapshot(String collection, java.util.function.UnaryOperator<SnapshotProgress> change) {
    for (int i = 0; i < carried.snapshots.size(); i++) {
      if (carried.snapshots.get(i).collection().equals(collection) && !carried.snapshots.get(i).done()) {
        carried.snapshots.set(i, change.apply(carried.snapshots.get(i)));
        return;
      }
    }
  }

  void committed(BatchOutcome outcome, Checkpoint stored, long nowMillis) {
    carried.checkpoint = stored;
    carried.lastBatchId = outcome.batchId();
    carried.committedAtMillis = nowMillis;
    carried.totals = carried.totals.plus(outcome.figures());
    batchesThisRun++;
    carried.failedAttempts = 0;
    if (outcome.oplog() != null) {
      oplog = outcome.oplog();
    }
    if (outcome.figures().get(BatchFigures.FRESHNESS) != null) {
      carried.lastFreshness = outcome.figures().get(BatchFigures.FRESHNESS);
    }
    if (outcome.stoppedAt() != null) {
      carried.paused = true;
      carried.pausedReason = "stopped before a control event (" + outcome.stoppedAt()
          + "); adjust the source or set controlEventPolicy to IGNORE, then resume";
    }
  }

  void failed(String error, String type, long nowMillis, boolean needsOperator) {
    carried.lastError = error;
    carried.lastFailureType = type;
    carried.lastErrorAtMillis = nowMillis;
    carried.failedAttempts++;
    if (needsOperator) {
      carried.paused = true;
      carried.failed = true;
      carried.pausedReason = "failed: " + error;
    }
  }

  void resume() {
    retryNow = true;
    carried.paused = false;
    carried.failed = false;
    carried.pausedReason = null;
  }

  /**
   * The state to record in the catalog now: the phase with why it is paused and, while the mirror
   * is failing, the last failure; at {@code nowMillis}, numbered after the last recorded change.
   */
  MirrorStateChange stateChange(long nowMillis) {
    boolean failing = phase == MirrorPhase.BACKING_OFF || phase == MirrorPhase.FAILED;
    String reason = phase == MirrorPhase.PAUSED || phase == MirrorPhase.FAILED ? carried.pausedReason : null;
    return new MirrorStateChange(carried.config.name(), phase, reason, failing ? carried.lastError : null,
        failing ? carried.lastFailureType : null, failing ? carried.failedAttempts : 0, nowMillis,
        carried.stateChanges + 1, carried.config, carried.startedFrom);
  }

  MirrorStatus status(long nowMillis) {
    Checkpoint checkpoint = carried.checkpoint;
    BatchFreshness freshness = carried.lastFreshness;
    // Before the first commit the checkpoint is only a starting point: no age to speak of.
    Long age = checkpoint == null || carried.committedAtMillis == null ? null
        : Math.max(0, nowMillis / 1000 - checkpoint.clusterTimeSeconds());
    return new MirrorStatus(carried.config.name(), phase, carried.pausedReason, carried.lastBatchId, batchInFlight,
        checkpoint, carried.committedAtMillis, age, carried.totals, carried.lastError, carried.lastErrorAtMillis,
        carried.failedAttempts, carried.config, List.copyOf(carried.pendingEdits), List.copyOf(carried.rejectedEdits),
        carried.run, batchesThisRun,
        oplog == null || checkpoint == null ? null : oplog.headroomSeconds(checkpoint),
        oplog == null || checkpoint == null ? null : oplog.warning(checkpoint), List.copyOf(carried.snapshots),
        freshness == null ? null : Math.max(0, nowMillis - freshness.visibleThroughMillis()), freshness,
        carried.startedFrom, carried.fieldRuleRewrites.isEmpty() ? null : carried.fieldRuleRewrites.get(0).describe());
  }
}
