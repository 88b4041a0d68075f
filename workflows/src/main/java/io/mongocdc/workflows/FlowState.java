package io.mongocdc.workflows;

import io.mongocdc.workflows.model.BatchFreshness;
import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.JsonText;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.MirrorTotals;
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

/**
 * The mutable state of one workflow run: what continue-as-new carries ({@link CarriedState}) plus
 * what only this run needs. Plain deterministic code, no Temporal calls, so it is easy to test.
 */
final class FlowState {

  /** Status keeps this many rejected edits and signals; older ones drop off. */
  static final int REJECTED_EDITS_KEPT = 10;

  MirrorConfig config;
  boolean setUp;
  Checkpoint checkpoint;
  long lastBatchId;
  Long committedAtMillis;
  /** The freshness of the last committed batch that delivered changes, in this run; null before one. */
  BatchFreshness lastFreshness;
  MirrorTotals totals;
  boolean paused;
  boolean failed;
  String pausedReason;
  final List<EditRequest> pendingEdits = new ArrayList<>();
  final List<RejectedEdit> rejectedEdits = new ArrayList<>();
  String lastError;
  Long lastErrorAtMillis;
  String lastFailureType;
  int failedAttempts;
  long stateChanges;
  int run;
  /** Every collection's snapshot, in the order they were asked for; done ones stay for status. */
  final List<SnapshotProgress> snapshots = new ArrayList<>();
  /** A resync's collections whose unseen rows are still to be deleted, in order. */
  final List<String> sweepPending = new ArrayList<>();
  /** autoResync found the history lost: the next step resynchronises. */
  boolean resyncNeeded;
  Long autoResyncedAtMillis;

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
  /** Where the filling of added typed columns goes on; null when none is pending. */
  String typedColumnsBackfillFrom;
  /** The declared typed column indexes are to be created once no snapshot is pending. */
  boolean typedColumnIndexesPending;

  FlowState(CarriedState carried) {
    config = carried.config();
    setUp = carried.setUp();
    checkpoint = carried.checkpoint();
    lastBatchId = carried.lastBatchId();
    committedAtMillis = carried.committedAtMillis();
    totals = carried.totals();
    paused = carried.paused();
    failed = carried.failed();
    pausedReason = carried.pausedReason();
    pendingEdits.addAll(carried.pendingEdits());
    rejectedEdits.addAll(carried.rejectedEdits());
    lastError = carried.lastError();
    lastErrorAtMillis = carried.lastErrorAtMillis();
    failedAttempts = carried.failedAttempts();
    run = carried.run();
    snapshots.addAll(carried.snapshots());
    lastFailureType = carried.lastFailureType();
    stateChanges = carried.stateChanges();
    sweepPending.addAll(carried.sweepPending());
    resyncNeeded = carried.resyncNeeded();
    autoResyncedAtMillis = carried.autoResyncedAtMillis();
    typedColumnsBackfillFrom = carried.typedColumnsBackfillFrom();
    typedColumnIndexesPending = carried.typedColumnIndexesPending();
  }

  CarriedState carry() {
    return CarriedState.builder()
        .config(config)
        .setUp(setUp)
        .checkpoint(checkpoint)
        .lastBatchId(lastBatchId)
        .committedAtMillis(committedAtMillis)
        .totals(totals)
        .paused(paused)
        .failed(failed)
        .pausedReason(pausedReason)
        .pendingEdits(pendingEdits)
        .rejectedEdits(rejectedEdits)
        .lastError(lastError)
        .lastErrorAtMillis(lastErrorAtMillis)
        .failedAttempts(failedAttempts)
        .run(run + 1)
        .snapshots(snapshots)
        .lastFailureType(lastFailureType)
        .stateChanges(stateChanges)
        .sweepPending(sweepPending)
        .resyncNeeded(resyncNeeded)
        .autoResyncedAtMillis(autoResyncedAtMillis)
        .typedColumnsBackfillFrom(typedColumnsBackfillFrom)
        .typedColumnIndexesPending(typedColumnIndexesPending)
        .build();
  }

  /** The settings the next batch will use: the current ones with every pending edit applied. */
  MirrorSettings nextSettings() {
    MirrorSettings settings = config.settings();
    for (EditRequest edit : pendingEdits) {
      settings = settings.apply(edit);
    }
    return settings;
  }

  /** The collections pending edits add, in the order they were asked for. */
  List<String> collectionsToAdd() {
    Set<String> added = new LinkedHashSet<>();
    for (EditRequest edit : pendingEdits) {
      if (edit.addCollections() != null) {
        added.addAll(edit.addCollections());
      }
    }
    return List.copyOf(added);
  }

  /** The mirror as the next step will run it: every pending edit applied. */
  MirrorConfig nextConfig() {
    return withEdit(null);
  }

  private MirrorConfig withEdit(EditRequest extra) {
    List<String> collections = new ArrayList<>(config.collections());
    collectionsToAdd().forEach(collections::add);
    MirrorSettings settings = nextSettings();
    if (extra != null) {
      if (extra.addCollections() != null) {
        collections.addAll(extra.addCollections());
      }
      settings = settings.apply(extra);
    }
    return config.withCollections(collections).withSettings(settings);
  }

  /**
   * Checks an edit, its JSON body as received, against the mirror it would apply to.
   *
   * @throws io.mongocdc.workflows.model.InvalidEditException naming every problem
   * @throws IllegalStateException if the mirror is terminating
   */
  EditRequest checkEdit(Object body) {
    if (terminateRequested || phase == MirrorPhase.TERMINATED) {
      throw new IllegalStateException("mirror '" + config.name() + "' is terminating; edits are no longer accepted");
    }
    EditRequest edit = EditRequest.fromJson(body);
    List<String> problems = new ArrayList<>(addedCollectionProblems(edit));
    problems.addAll(nextConfig().settings().columns().editProblems(edit));
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

  private List<String> addedCollectionProblems(EditRequest edit) {
    if (edit.addCollections() == null) {
      return List.of();
    }
    List<String> problems = new ArrayList<>();
    if (config.collections().isEmpty()) {
      problems.add("addCollections: this mirror replicates every collection of " + config.sourceDatabase()
          + " already");
      return problems;
    }
    Set<String> seen = new LinkedHashSet<>(config.collections());
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

  void reject(long nowMillis, String request, String reason) {
    rejectedEdits.add(new RejectedEdit(nowMillis, request, reason));
    while (rejectedEdits.size() > REJECTED_EDITS_KEPT) {
      rejectedEdits.remove(0);
    }
  }

  /** Whether a pending edit adds, removes or indexes typed columns. */
  boolean pendingEditsChangeColumns() {
    return pendingEdits.stream().anyMatch(EditRequest::changesColumns);
  }

  /** Per collection, the typed columns pending edits remove with {@code dropColumnData}. */
  Map<String, List<String>> columnsToDrop() {
    Map<String, List<String>> drop = new TreeMap<>();
    for (EditRequest edit : pendingEdits) {
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
    if (!pendingEdits.isEmpty()) {
      List<String> added = collectionsToAdd();
      config = nextConfig();
      pendingEdits.clear();
      if (config.settings().snapshot().enabled()) {
        startSnapshots(added);
      }
    }
  }

  /**
   * The added collections could not be set up (the source or destination refused them): pending
   * edits lose their {@code addCollections}, and the refusal is kept with the rejected edits.
   */
  void rejectAddedCollections(long nowMillis, String reason) {
    List<String> added = collectionsToAdd();
    List<EditRequest> kept = new ArrayList<>();
    for (EditRequest edit : pendingEdits) {
      EditRequest settings = edit.settingsOnly();
      if (!settings.changesNothing()) {
        kept.add(settings);
      }
    }
    pendingEdits.clear();
    pendingEdits.addAll(kept);
    reject(nowMillis, JsonText.of(Map.of("addCollections", added)), reason);
  }

  /**
   * A resync from the current checkpoint: the collections are copied again (their earlier
   * snapshots are replaced), then the rows the copy did not see are swept from the tables of
   * {@code sweep} (the copied collections, and any the source no longer has).
   */
  void resyncFromCheckpoint(List<String> collections, List<String> sweep) {
    snapshots.removeIf(s -> collections.contains(s.collection()));
    startSnapshots(collections);
    sweepPending.clear();
    sweepPending.addAll(sweep);
  }

  /** True if {@code autoResync} may act now: never yet, or a batch committed since it last did. */
  boolean mayAutoResync() {
    return autoResyncedAtMillis == null || (committedAtMillis != null && committedAtMillis > autoResyncedAtMillis);
  }

  /** Snapshots of {@code collections} start from the current checkpoint. */
  void startSnapshots(List<String> collections) {
    collections.forEach(collection -> snapshots.add(SnapshotProgress.pending(collection, checkpoint)));
  }

  boolean snapshotPending() {
    return snapshots.stream().anyMatch(s -> !s.done());
  }

  void snapshotPlanned(SnapshotPlan plan) {
    replaceSnapshot(plan.collection(), progress -> progress.planned(plan));
  }

  void snapshotPartitionCopied(SnapshotPartitionCopied copied) {
    replaceSnapshot(copied.collection(), progress -> progress.copied(copied));
    totals = totals.plusDrift(copied.columnDrift());
    snapshotPartitionsThisRun++;
  }

  private void replaceSnapshot(String collection, java.util.function.UnaryOperator<SnapshotProgress> change) {
    for (int i = 0; i < snapshots.size(); i++) {
      if (snapshots.get(i).collection().equals(collection) && !snapshots.get(i).done()) {
        snapshots.set(i, change.apply(snapshots.get(i)));
        return;
      }
    }
  }

  void committed(BatchOutcome outcome, Checkpoint stored, long nowMillis) {
    checkpoint = stored;
    lastBatchId = outcome.batchId();
    committedAtMillis = nowMillis;
    totals = totals.plus(outcome.figures());
    batchesThisRun++;
    failedAttempts = 0;
    if (outcome.oplog() != null) {
      oplog = outcome.oplog();
    }
    if (outcome.figures().freshness() != null) {
      lastFreshness = outcome.figures().freshness();
    }
    if (outcome.stoppedAt() != null) {
      paused = true;
      pausedReason = "stopped before a control event (" + outcome.stoppedAt() + "); adjust the source or set "
          + "controlEventPolicy to IGNORE, then resume";
    }
  }

  void failed(String error, String type, long nowMillis, boolean needsOperator) {
    lastError = error;
    lastFailureType = type;
    lastErrorAtMillis = nowMillis;
    failedAttempts++;
    if (needsOperator) {
      paused = true;
      failed = true;
      pausedReason = "failed: " + error;
    }
  }

  void resume() {
    retryNow = true;
    paused = false;
    failed = false;
    pausedReason = null;
  }

  /**
   * The state to record in the catalog now: the phase with why it is paused and, while the mirror
   * is failing, the last failure; at {@code nowMillis}, numbered after the last recorded change.
   */
  MirrorStateChange stateChange(long nowMillis) {
    boolean failing = phase == MirrorPhase.BACKING_OFF || phase == MirrorPhase.FAILED;
    String reason = phase == MirrorPhase.PAUSED || phase == MirrorPhase.FAILED ? pausedReason : null;
    return new MirrorStateChange(config.name(), phase, reason, failing ? lastError : null,
        failing ? lastFailureType : null, failing ? failedAttempts : 0, nowMillis, stateChanges + 1, config);
  }

  MirrorStatus status(long nowMillis) {
    // Before the first commit the checkpoint is only a starting point: no age to speak of.
    Long age = checkpoint == null || committedAtMillis == null ? null
        : Math.max(0, nowMillis / 1000 - checkpoint.clusterTimeSeconds());
    return new MirrorStatus(config.name(), phase, pausedReason, lastBatchId, batchInFlight, checkpoint,
        committedAtMillis, age, totals, lastError, lastErrorAtMillis, failedAttempts, config,
        List.copyOf(pendingEdits), List.copyOf(rejectedEdits), run, batchesThisRun,
        oplog == null || checkpoint == null ? null : oplog.headroomSeconds(checkpoint),
        oplog == null || checkpoint == null ? null : oplog.warning(checkpoint), List.copyOf(snapshots),
        lastFreshness == null ? null : Math.max(0, nowMillis - lastFreshness.visibleThroughMillis()), lastFreshness);
  }
}
