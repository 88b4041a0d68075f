package io.mongocdc.workflows;

import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.CommitCheckpointRequest;
import io.mongocdc.workflows.model.CommitResult;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.EditResult;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.JsonText;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.PullRecordsRequest;
import io.mongocdc.workflows.model.SnapshotPartitionCopied;
import io.mongocdc.workflows.model.SnapshotPartitionRequest;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotPlanRequest;
import io.mongocdc.workflows.model.SnapshotProgress;
import io.mongocdc.workflows.model.StartPointRequest;
import io.mongocdc.workflows.model.StopRequest;
import io.mongocdc.workflows.model.SweepRequest;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * The mirror's loop: set up once, copy the existing documents (the snapshot), then PullRecords
 * -> CommitCheckpoint -> next batch, with operator controls between steps and continue-as-new to
 * keep history bounded.
 *
 * <p>The snapshot starts at the checkpoint taken before it and the batches after it start there
 * too, so the changes made while it copied are replayed over the copied rows; the destination's
 * apply by position absorbs the overlap. A collection added by an edit is snapshotted the same way
 * from the committed checkpoint.
 *
 * <p>The workflow never retries an activity itself while its retry policy runs; once the policy
 * gives up on a retryable failure it waits (doubling, capped) and starts the batch again from the
 * committed checkpoint. A failure retrying cannot fix leaves the mirror FAILED until resumed.
 */
public class CdcFlowWorkflowImpl implements CdcFlowWorkflow {

  private static final Logger log = Workflow.getLogger(CdcFlowWorkflowImpl.class);
  /** The change id of the initial snapshot: histories from before it replay without one. */
  static final String SNAPSHOT_CHANGE = "initial-snapshot";
  /** The change id of typed columns' steps (columns aligned on edit, filled, indexed): older histories have none. */
  static final String TYPED_COLUMNS_CHANGE = "typed-columns";
  /**
   * The change id of applying, after an alignment of typed columns, only the edits it aligned: those
   * that arrived during it wait for their own. Recorded only when an edit arrived during one.
   */
  static final String COLUMN_EDITS_IN_ORDER_CHANGE = "column-edits-in-order";
  /** The change id of numbering batches after the stored checkpoint's when a mirror is created again. */
  static final String STORED_BATCH_IDS_CHANGE = "stored-batch-ids";
  /** The change id of recording phase changes in the catalog: histories from before it replay without. */
  static final String CATALOG_STATE_CHANGE = "catalog-state";
  /** The change id of a resync also sweeping the recorded tables of collections the source no longer has. */
  static final String RESYNC_SWEEPS_RECORDED_TABLES_CHANGE = "resync-sweeps-recorded-tables";
  /**
   * The change id of a resync not sweeping collections that have a snapshot filter (it used to
   * delete the rows of the documents the filter leaves out). Recorded only for such a resync.
   */
  static final String RESYNC_KEEPS_FILTERED_ROWS_CHANGE = "resync-keeps-filtered-rows";
  /**
   * The change id of copying a collection again when an edit turns its history on, so its history
   * holds a row at every current row's position. Recorded only when an edit turns history on.
   */
  static final String HISTORY_ON_COPIES_CHANGE = "history-on-copies";
  /**
   * The change id of rewriting the rows written before field rules were added. Recorded only when
   * an edit adds field rules to a mirror that is set up.
   */
  static final String FIELD_RULE_REWRITE_CHANGE = "field-rule-rewrite";
  /**
   * The change id of copying the collections an edit of a running mirror asks for (added, copied
   * again, history turned on) in rounds that take turns with the batches, instead of before the
   * next batch. Recorded only when such a copy is pending.
   */
  static final String COPIES_BETWEEN_BATCHES_CHANGE = "copies-between-batches";
  /**
   * While a copy takes turns with the batches (one round of {@code parallelPartitions} partitions,
   * then a batch), a batch runs at most this long, or its own maximum if shorter: a long maximum
   * batch duration would otherwise stretch every turn of the copy. Rows still become visible within
   * the batch ({@code maxVisibilityDelay}), so a shorter batch costs the destination's freshness
   * nothing.
   */
  static final int TURN_SECONDS = 10;
  /** A run copies at most this many partitions, then continues as new (each adds ~6 events). */
  static final int SNAPSHOT_PARTITIONS_PER_RUN = 500;

  private final CdcActivities activities = new CdcActivities();
  private final FlowState state;
  /** The part of {@link #state} continue-as-new carries: {@code state.carried}. */
  private final CarriedState carried;
  /** A batch ran since the last slice of typed column filling: the next step may fill again. */
  private boolean backfillTurn;
  /** A batch ran since the last slice of a field rule rewrite: the next step may rewrite again. */
  private boolean rewriteTurn;
  /** No round of a copy taking turns with the batches ran since the last batch: the next step may copy. */
  private boolean copyTurn = true;
  /** This run was started by {@code mirror resync}: set up from a new starting point. */
  private final boolean resync;
  /** The scope of the PullRecords call in flight, so a signal can cancel it. */
  private CancellationScope inFlight;
  private boolean inFlightCancelledByOperator;
  /** Whether this run records its phase changes; decided at its first change. */
  private Boolean recordsStates;
  /** The last change recorded by this run, to write only what changed. */
  private MirrorStateChange recorded;

  /**
   * Builds the state before any handler runs, so a signal sent with the start finds it. An input
   * that cannot be read fails the workflow here: thrown from a {@code @WorkflowInit} constructor,
   * a Temporal failure fails the execution, while the SDK's own binding error would fail every
   * workflow task, forever, without saying why where an operator looks.
   */
  @WorkflowInit
  public CdcFlowWorkflowImpl(Object input) {
    CdcFlowInput flow = readInput(input);
    CarriedState carried = flow.carried() != null ? flow.carried() : CarriedState.initial(flow.config());
    if (carried.config == null) {
      // Every handler reads the configuration; without one the workflow must not get that far.
      throw ApplicationFailure.newNonRetryableFailure("invalid mirror: no mirror configuration given",
          FailureTypes.INVALID_CONFIGURATION);
    }
    this.state = new FlowState(carried);
    this.carried = carried;
    this.resync = flow.isResync();
    if (flow.chosenStart() != null) {
      carried.chosenStart = flow.chosenStart();
    }
  }

  private static CdcFlowInput readInput(Object input) {
    try {
      return CdcFlowInput.fromJson(input);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure("invalid mirror input: " + e.getMessage(),
          FailureTypes.INVALID_CONFIGURATION);
    }
  }

  /** The input was read by the constructor; the parameter is there because Temporal passes it to both. */
  @Override
  public MirrorStatus run(Object input) {
    List<String> problems = carried.config.problems();
    if (!problems.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "invalid mirror: " + String.join("; ", problems), FailureTypes.INVALID_CONFIGURATION);
    }
    while (!state.terminateRequested) {
      // Before pausing too, so a run that paused right after its last batch still hands over.
      if (state.batchesThisRun >= carried.config.settings().continueAsNewEveryBatches()
          || state.snapshotPartitionsThisRun >= SNAPSHOT_PARTITIONS_PER_RUN
          || Workflow.getInfo().isContinueAsNewSuggested()) {
        continueAsNew();
      }
      if (carried.paused) {
        waitWhilePaused();
        continue;
      }
      state.phase = !carried.setUp ? MirrorPhase.SETTING_UP
          : state.snapshotPending() ? MirrorPhase.SNAPSHOTTING : MirrorPhase.RUNNING;
      if (!carried.setUp) {
        recordState(); // nextStep records its own phase, with the edits it applies
      }
      attempt(carried.setUp ? this::nextStep : this::setUp);
    }
    state.phase = MirrorPhase.TERMINATED;
    recordState();
    log.info("mirror {} terminated after batch {}", carried.config.name(), carried.lastBatchId);
    return state.status(Workflow.currentTimeMillis());
  }

  private void setUp() {
    activities.validateMirror(carried.config);
    Checkpoint chosen = carried.chosenStart == null ? null : checkedStartPoint();
    List<String> tables = activities.createDestinationTables(carried.config);
    Checkpoint stored = activities.registerMirror(carried.config);
    if (stored != null && Workflow.getVersion(STORED_BATCH_IDS_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1) {
      // A mirror created again on a catalog that holds its rows: its batches go on after the
      // stored one. Numbered from 1, the catalog would refuse them as old and the checkpoint
      // would never move.
      carried.lastBatchId = Math.max(carried.lastBatchId, activities.committedBatchId(carried.config));
    }
    if (resync) {
      // The stored checkpoint's history is gone: start again from now, over the existing rows.
      stored = null;
    }
    if (chosen != null) {
      if (stored != null) {
        log.info("mirror {}: starting {} as its creator chose, not {} as the catalog held",
            carried.config.name(), chosen.describe(), stored.describe());
      }
      stored = null;
    }
    carried.checkpoint = stored != null ? stored : chosen != null ? chosen : activities.takeStartingPoint(carried.config);
    // Only a mirror without a committed checkpoint is new; one with a checkpoint has its rows.
    // A resync copies whatever the snapshot setting says: its rows would otherwise miss the gap.
    if (stored == null
        && (resync || carried.config.settings().snapshot().enabled())
        && Workflow.getVersion(SNAPSHOT_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1) {
      List<String> collections = carried.config.collections().isEmpty()
          ? activities.listSourceCollections(carried.config)
          : carried.config.collections();
      state.startSnapshots(collections);
      if (resync) {
        carried.sweepPending.addAll(collectionsToSweep(collections));
        // A source whose "now" has not moved since the last copy (a generator that has written
        // nothing since) gives the same start, whose finished plan would answer the copy unread.
        state.planAfresh(collections);
      }
    }
    if (!carried.config.settings().columns().indexes().isEmpty() && typedColumnsVersion()) {
      carried.typedColumnIndexesPending = true;
    }
    state.rememberHashedPaths(carried.config.settings().fieldRules());
    carried.startedFrom = stored == null ? carried.checkpoint : null;
    carried.chosenStart = null;
    carried.setUp = true;
    log.info("mirror {} set up: tables {}, starting {}", carried.config.name(), tables, carried.checkpoint.describe());
  }

  /**
   * The chosen start point, checked before anything is created. A point the source's history does
   * not hold never will again (history only moves on), so the workflow ends there, failed, and the
   * mirror can be created again at another point; other failures are retried as setup's are.
   */
  private Checkpoint checkedStartPoint() {
    try {
      return activities.checkStartPoint(new StartPointRequest(carried.config, carried.chosenStart));
    } catch (ActivityFailure e) {
      if (!Failures.isInvalidConfiguration(e)) {
        throw e;
      }
      throw ApplicationFailure.newNonRetryableFailure("start point refused: " + Failures.message(e),
          FailureTypes.INVALID_CONFIGURATION);
    }
  }

  /** Applies pending edits, then copies snapshot partitions if any are left, else runs a batch. */
  private void nextStep() {
    applyPendingEdits();
    state.forgetFinishedCopiesBetweenBatches();
    boolean betweenBatches = state.pendingCopiesGoBetweenBatches() && copiesBetweenBatchesVersion();
    if (carried.resyncNeeded) {
      resyncFromNow();
    } else if (!carried.fieldRuleRewrites.isEmpty()
        && (rewriteTurn || state.snapshotPending() || !carried.sweepPending.isEmpty()) && fieldRuleRewriteVersion()) {
      // Before any copy: a copy writes its rows with the rules already, which a rewrite must not reach.
      rewriteFieldRules();
    } else if (state.snapshotPending() && (!betweenBatches || copyTurn)) {
      state.phase = MirrorPhase.SNAPSHOTTING;
      recordState();
      // A copy an edit asked for copies one round of partitions, then a batch streams every collection.
      copySnapshots(betweenBatches ? carried.config.settings().snapshot().parallelPartitions() : Integer.MAX_VALUE);
      copyTurn = false;
    } else if (!carried.sweepPending.isEmpty() && !state.snapshotPending()) {
      state.phase = MirrorPhase.SNAPSHOTTING;
      recordState();
      sweepUnseenRows();
    } else if (carried.typedColumnIndexesPending && !state.snapshotPending() && typedColumnsVersion()) {
      int created = activities.createTypedColumnIndexes(carried.config);
      carried.typedColumnIndexesPending = false;
      log.info("mirror {}: {} typed column indexes created", carried.config.name(), created);
    } else if (carried.typedColumnsBackfillFrom != null && backfillTurn && typedColumnsVersion()) {
      fillTypedColumns(null);
    } else {
      state.phase = MirrorPhase.RUNNING;
      recordState();
      runBatch(betweenBatches);
      backfillTurn = true;
      rewriteTurn = true;
      copyTurn = true;
    }
  }

  /** Histories from before a copy an edit asked for took turns with the batches: the batches waited for it. */
  private boolean copiesBetweenBatchesVersion() {
    return Workflow.getVersion(COPIES_BETWEEN_BATCHES_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  /**
   * One slice of the filling of typed columns (the first also adds and drops columns), then a
   * batch: streaming waits at most one slice for the backfill of a large table.
   */
  private void fillTypedColumns(Map<String, List<String>> drop) {
    TypedColumnsAligned aligned = activities.alignTypedColumns(drop == null
        ? TypedColumnsRequest.resume(carried.config, carried.typedColumnsBackfillFrom)
        : TypedColumnsRequest.first(carried.config, state.nextConfig(), drop));
    carried.typedColumnsBackfillFrom = aligned.resumeAfter();
    backfillTurn = false;
    if (aligned.resumeAfter() == null) {
      log.info("mirror {}: typed columns filled", carried.config.name());
    }
  }

  /** One slice of the rewrite of the rows written before field rules were added; then a batch. */
  private void rewriteFieldRules() {
    FieldRuleRewrite next = activities.rewriteFieldRules(carried.config, carried.fieldRuleRewrites.get(0));
    rewriteTurn = false;
    if (next.done()) {
      carried.fieldRuleRewrites.remove(0);
      log.info("mirror {}: field rule rewrite done: {}", carried.config.name(), next.describe());
    } else {
      carried.fieldRuleRewrites.set(0, next);
    }
  }

  private boolean fieldRuleRewriteVersion() {
    return Workflow.getVersion(FIELD_RULE_REWRITE_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  /**
   * Field rules an applied edit added reach the rows written before them: their rewrite is queued,
   * up to the committed checkpoint, where the rules took effect.
   */
  private void rewriteRowsBeforeAddedRules(FieldRuleSettings before) {
    FieldRuleSettings now = carried.config.settings().fieldRules();
    if (now.equals(before)) {
      return;
    }
    state.rememberHashedPaths(now);
    if (!carried.setUp || !fieldRuleRewriteVersion()) {
      return;
    }
    // The catalog shows the new rules at once: a verify's repair checks them there before it writes.
    recordState();
    FieldRuleSettings added = now.addedSince(before);
    if (!added.isEmpty() && carried.checkpoint != null) {
      carried.fieldRuleRewrites.add(FieldRuleRewrite.of(added, carried.checkpoint));
      log.info("mirror {}: field rules {} added; rewriting the rows written up to {}", carried.config.name(),
          added.collections(), carried.checkpoint.describe());
    }
  }

  private boolean typedColumnsVersion() {
    return Workflow.getVersion(TYPED_COLUMNS_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  /** autoResync: a new starting point, every collection copied again, then swept (see {@link #sweepUnseenRows}). */
  private void resyncFromNow() {
    state.phase = MirrorPhase.SNAPSHOTTING;
    recordState();
    Checkpoint start = activities.takeStartingPoint(carried.config);
    List<String> collections = carried.config.collections().isEmpty()
        ? activities.listSourceCollections(carried.config)
        : carried.config.collections();
    carried.checkpoint = start;
    state.resyncFromCheckpoint(collections, collectionsToSweep(collections));
    carried.autoResyncedAtMillis = Workflow.currentTimeMillis();
    carried.resyncNeeded = false;
    log.info("mirror {}: resynchronising {} from {}", carried.config.name(), collections, start.describe());
  }

  /**
   * What a resync sweeps: the collections it copies and, for a mirror of every collection, the
   * collections it has tables of: one dropped while the history was lost is no longer listed,
   * and its table's rows are all of documents deleted meanwhile. Not a collection with a
   * snapshot filter (see {@link FlowState#withoutSnapshotFilter}).
   */
  private List<String> collectionsToSweep(List<String> copied) {
    List<String> sweep = new ArrayList<>(copied);
    if (carried.config.collections().isEmpty() && Workflow.getVersion(RESYNC_SWEEPS_RECORDED_TABLES_CHANGE,
        Workflow.DEFAULT_VERSION, 1) == 1) {
      activities.listRecordedCollections(carried.config).stream().filter(c -> !copied.contains(c)).forEach(sweep::add);
    }
    List<String> unfiltered = state.withoutSnapshotFilter(sweep);
    if (unfiltered.size() < sweep.size() && Workflow.getVersion(RESYNC_KEEPS_FILTERED_ROWS_CHANGE,
        Workflow.DEFAULT_VERSION, 1) == 1) {
      return unfiltered;
    }
    return sweep;
  }

  /**
   * After a resync's copy (before any batch) or a collection's copy again (between batches): every
   * row the copy saw carries its starting point's position or a newer change's, so a row with an
   * older position is one the copy did not see (its document was deleted while the history was
   * lost, or the row was damaged by hand) and is deleted.
   */
  private void sweepUnseenRows() {
    while (!carried.sweepPending.isEmpty()) {
      String collection = carried.sweepPending.get(0);
      long deleted = activities.sweepUnseenRows(
          new SweepRequest(carried.config, collection, state.sweepPosition(collection)));
      log.info("mirror {}: {} rows of {} the resync's copy did not see deleted", carried.config.name(), deleted,
          collection);
      carried.sweepPending.remove(0);
    }
  }

  /**
   * Pending edits take effect, in arrival order: edits that arrive while typed columns are aligned
   * for earlier ones are aligned (and applied) in a round of their own, before the next step.
   */
  private void applyPendingEdits() {
    while (applyPendingEditsRound()) {
      // the edits that arrived during the round's alignment go next
    }
  }

  /** @return whether edits arrived during the round's alignment and are still pending */
  private boolean applyPendingEditsRound() {
    List<String> historyBefore = List.copyOf(carried.config.settings().history().collections());
    FieldRuleSettings rulesBefore = carried.config.settings().fieldRules();
    boolean more = applyPendingEditsRoundOnce();
    copyCollectionsWhoseHistoryTurnedOn(historyBefore);
    rewriteRowsBeforeAddedRules(rulesBefore);
    return more;
  }

  /**
   * A collection whose history an applied edit turned on is copied again (and swept), as
   * resyncCollections does: every current row gets a history row at the copy's position, so the
   * history answers "the state at time T" for any T from then on, across the gap while it was off.
   */
  private void copyCollectionsWhoseHistoryTurnedOn(List<String> before) {
    if (!carried.setUp) {
      return;
    }
    List<String> turnedOn = state.historyTurnedOnSince(before);
    if (!turnedOn.isEmpty() && Workflow.getVersion(HISTORY_ON_COPIES_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1) {
      state.copyAgain(turnedOn);
      log.info("mirror {}: history turned on for {}: copying them again from {} so their history starts with"
          + " every current document", carried.config.name(), turnedOn, carried.checkpoint.describe());
    }
  }

  private boolean applyPendingEditsRoundOnce() {
    List<String> resynced = state.collectionsToResync();
    if (!resynced.isEmpty() && carried.config.collections().isEmpty()) {
      List<String> existing = activities.listSourceCollections(carried.config);
      List<String> missing = resynced.stream().filter(c -> !existing.contains(c)).toList();
      if (!missing.isEmpty()) {
        state.rejectResyncOf(missing, Workflow.currentTimeMillis());
        log.warn("mirror {}: collections {} not copied again: the source has no such collection",
            carried.config.name(), missing);
      }
    }
    List<String> added = state.collectionsToAdd();
    if (!added.isEmpty() && collectionsAccepted(added)) {
      activities.createDestinationTables(state.nextConfig());
      log.info("mirror {}: adding collections {} from {}", carried.config.name(), added, carried.checkpoint.describe());
    }
    if (state.pendingEditsChangeColumns() && typedColumnsVersion()) {
      // Before the edits apply: a failure leaves them pending, and the batch after them finds its columns.
      int aligned = state.pendingEditCount();
      fillTypedColumns(state.columnsToDrop());
      if (state.pendingEditCount() > aligned && columnEditsInOrderVersion()) {
        state.applyPendingEdits(aligned);
        carried.typedColumnIndexesPending = !carried.config.settings().columns().indexes().isEmpty();
        return true;
      }
      carried.typedColumnIndexesPending = !state.nextConfig().settings().columns().indexes().isEmpty();
    }
    state.applyPendingEdits();
    return false;
  }

  /** Histories from before it applied every pending edit after an alignment, those that arrived during it too. */
  private boolean columnEditsInOrderVersion() {
    return Workflow.getVersion(COLUMN_EDITS_IN_ORDER_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  /**
   * Validates the mirror with the added collections. A collection the source or destination
   * refuses is dropped from the pending edits and reported as a rejected edit; the rest of the
   * edits still apply. Any other failure is thrown: the step is tried again later.
   */
  private boolean collectionsAccepted(List<String> added) {
    try {
      activities.validateMirror(state.nextConfig());
      return true;
    } catch (ActivityFailure e) {
      if (!Failures.isInvalidConfiguration(e)) {
        throw e;
      }
      state.rejectAddedCollections(Workflow.currentTimeMillis(), Failures.describe(e));
      log.warn("mirror {}: collections {} not added: {}", carried.config.name(), added, Failures.describe(e));
      return false;
    }
  }

  /**
   * Plans what is not planned (after continue-as-new or a failure the catalog says which
   * partitions are done), then copies the pending partitions, {@code parallelPartitions} at a
   * time, starting {@code atMost} of them (one round of a copy that takes turns with the batches).
   * A pause or terminate stops starting new ones; the ones running finish. The first failure is
   * thrown once every running copy has ended, so none outlives the step.
   */
  private void copySnapshots(int atMost) {
    Deque<SnapshotPartitionRequest> queue = new ArrayDeque<>();
    for (SnapshotProgress progress : List.copyOf(carried.snapshots)) {
      if (progress.done()) {
        continue;
      }
      SnapshotPlan plan = activities.planSnapshot(new SnapshotPlanRequest(carried.config, progress.collection(),
          progress.position(), carried.freshSnapshotPlans.contains(progress.collection())));
      state.snapshotPlanned(plan);
      for (int partition : plan.pendingPartitions()) {
        queue.add(new SnapshotPartitionRequest(carried.config, progress.collection(), partition, progress.position()));
      }
    }
    RuntimeException[] failure = new RuntimeException[1];
    inFlight = Workflow.newCancellationScope(() -> {
      List<Promise<PartitionAttempt>> running = new ArrayList<>();
      int parallel = carried.config.settings().snapshot().parallelPartitions();
      int started = 0;
      while (!running.isEmpty() || (!queue.isEmpty() && started < atMost && failure[0] == null && !snapshotShouldStop())) {
        while (running.size() < parallel && !queue.isEmpty() && started < atMost && failure[0] == null
            && !snapshotShouldStop()) {
          started++;
          SnapshotPartitionRequest request = queue.poll();
          running.add(activities.copySnapshotPartition(request)
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
              state.snapshotPartitionCopied(attempt.copied());
            }
          }
        }
      }
    });
    try {
      inFlight.run();
    } finally {
      inFlight = null;
    }
    if (failure[0] != null) {
      throw failure[0];
    }
    inFlightCancelledByOperator = false;
  }

  private boolean snapshotShouldStop() {
    return carried.paused || state.terminateRequested
        || state.snapshotPartitionsThisRun >= SNAPSHOT_PARTITIONS_PER_RUN
        || Workflow.getInfo().isContinueAsNewSuggested();
  }

  /** How one partition's copy ended: copied, or the failure. */
  private record PartitionAttempt(SnapshotPartitionCopied copied, RuntimeException error) {}

  /** @param betweenCopyRounds a copy takes turns with the batches: this one runs at most {@link #TURN_SECONDS} */
  private void runBatch(boolean betweenCopyRounds) {
    long batchId = carried.lastBatchId + 1;
    MirrorConfig config = carried.config;
    if (betweenCopyRounds
        && config.settings().maxBatchDurationSeconds() > TURN_SECONDS) {
      config = config.withSettings(config.settings().toBuilder().maxBatchDurationSeconds(TURN_SECONDS).build());
    }
    PullRecordsRequest request = new PullRecordsRequest(config, batchId, carried.checkpoint);
    BatchOutcome[] outcome = new BatchOutcome[1];
    state.batchInFlight = batchId;
    inFlight = Workflow.newCancellationScope(() -> {
      outcome[0] = activities.pullRecords(request);
    });
    try {
      inFlight.run();
    } finally {
      inFlight = null;
      state.batchInFlight = 0;
    }
    // A cancellation that came too late to stop the batch: it completed, so commit it.
    inFlightCancelledByOperator = false;
    // The commit is not cancellable: records were delivered, and the catalog should know.
    CommitResult result = activities.commitCheckpoint(new CommitCheckpointRequest(
        carried.config.name(), batchId, outcome[0].checkpoint(), outcome[0].figures()));
    state.committed(outcome[0], result.stored(), Workflow.currentTimeMillis());
  }

  /** Runs a setup or a batch; a failure is recorded and decides whether to back off or wait. */
  private void attempt(Runnable step) {
    try {
      step.run();
    } catch (ActivityFailure | CanceledFailure e) {
      if (inFlightCancelledByOperator) {
        inFlightCancelledByOperator = false;
        log.info("mirror {}: batch cancelled by the operator; it replays from {}",
            carried.config.name(), carried.checkpoint == null ? "the start" : carried.checkpoint.describe());
        return;
      }
      String error = Failures.describe(e);
      if (carried.config.settings().autoResync() && FailureTypes.HISTORY_LOST.equals(Failures.type(e))
          && state.mayAutoResync()) {
        // Opt-in: what an operator would do with mirror resync, without one. Once per loss.
        log.warn("mirror {}: {}; resynchronising (autoResync)", carried.config.name(), error);
        carried.resyncNeeded = true;
        return;
      }
      boolean needsOperator = Failures.needsOperator(e);
      state.failed(error, Failures.type(e), Workflow.currentTimeMillis(), needsOperator);
      log.warn("mirror {}: {} (attempt {}, {})", carried.config.name(), error, carried.failedAttempts,
          needsOperator ? "waiting for the operator" : "backing off");
      if (!needsOperator) {
        state.phase = MirrorPhase.BACKING_OFF;
        state.retryNow = false;
        // After clearing retryNow: a resume that arrives while the state is written still counts.
        recordState();
        // A pause or terminate ends the wait, and so does resume: "try again now".
        Workflow.await(CdcActivityOptions.workflowBackoff(carried.failedAttempts),
            () -> carried.paused || state.terminateRequested || state.retryNow);
      }
    }
  }

  private void waitWhilePaused() {
    state.phase = carried.failed ? MirrorPhase.FAILED : MirrorPhase.PAUSED;
    recordState();
    // Signals grow history while paused too; the loop continues as new if Temporal suggests it.
    Workflow.await(() -> !carried.paused || state.terminateRequested || Workflow.getInfo().isContinueAsNewSuggested());
  }

  /**
   * Writes the workflow's phase to the mirror's catalog row when it differs from what this run
   * last wrote (phase, reason, failure or configuration). The catalog keeps the newest change by
   * the workflow's clock and count of changes, so a late retry never shows an older state. A
   * catalog that cannot be reached costs the mirror nothing: the next change writes the state.
   */
  private void recordState() {
    if (recordsStates == null) {
      recordsStates = Workflow.getVersion(CATALOG_STATE_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
    }
    MirrorStateChange change = state.stateChange(Workflow.currentTimeMillis());
    if (!recordsStates || sameState(change, recorded)) {
      return;
    }
    carried.stateChanges = change.sequence();
    try {
      activities.recordMirrorState(change);
      recorded = change;
    } catch (ActivityFailure e) {
      log.warn("mirror {}: the catalog does not show state {} yet: {}", carried.config.name(), change.phase(),
          Failures.describe(e));
    }
  }

  private static boolean sameState(MirrorStateChange a, MirrorStateChange b) {
    return b != null && a.phase() == b.phase() && Objects.equals(a.reason(), b.reason())
        && Objects.equals(a.lastError(), b.lastError()) && a.failedAttempts() == b.failedAttempts()
        && a.config().equals(b.config());
  }

  private void continueAsNew() {
    // Handlers are synchronous today; waiting keeps an update from being cut off if one awaits later.
    Workflow.await(Workflow::isEveryHandlerFinished);
    log.info("mirror {}: continuing as new after batch {}", carried.config.name(), carried.lastBatchId);
    Workflow.continueAsNew(CdcFlowInput.continued(state.carry()));
  }

  @Override
  public void pause(Object request) {
    StopRequest stop = stopRequest("pause", request);
    if (stop == null) {
      return;
    }
    if (!carried.failed) {
      carried.paused = true;
      carried.pausedReason = "paused by the operator";
    }
    cancelInFlightIf(stop.cancelInFlight());
  }

  @Override
  public void resume() {
    state.resume();
  }

  @Override
  public void terminate(Object request) {
    StopRequest stop = stopRequest("terminate", request);
    if (stop == null) {
      return;
    }
    state.terminateRequested = true;
    cancelInFlightIf(stop.cancelInFlight());
  }

  /**
   * The body of a pause or terminate signal, or null if it has the wrong shape: then the signal
   * is recorded as rejected, with the reason, and not acted on (a signal cannot answer, so status
   * is where the operator sees it).
   */
  private StopRequest stopRequest(String signal, Object body) {
    try {
      return StopRequest.fromJson(signal, body);
    } catch (IllegalArgumentException e) {
      state.reject(Workflow.currentTimeMillis(), JsonText.of(body), e.getMessage());
      log.warn("mirror {}: signal rejected: {}", carried.config.name(), e.getMessage());
      return null;
    }
  }

  private void cancelInFlightIf(boolean cancel) {
    if (cancel && inFlight != null) {
      inFlightCancelledByOperator = true;
      inFlight.cancel("cancelled by the operator");
    }
  }

  @Override
  public void requestEdit(Object edit) {
    try {
      carried.pendingEdits.add(state.checkEdit(edit));
    } catch (IllegalArgumentException | IllegalStateException e) {
      state.reject(Workflow.currentTimeMillis(), JsonText.of(edit), e.getMessage());
      log.warn("mirror {}: edit by signal rejected: {}", carried.config.name(), e.getMessage());
    }
  }

  @Override
  public EditResult edit(Object edit) {
    EditRequest accepted = state.checkEdit(edit);
    carried.pendingEdits.add(accepted);
    long nextBatch = carried.lastBatchId + (state.batchInFlight != 0 ? 2 : 1);
    return new EditResult(state.nextSettings(), nextBatch);
  }

  @Override
  public void validateEdit(Object edit) {
    state.checkEdit(edit);
  }

  @Override
  public MirrorStatus status() {
    return state.status(Workflow.currentTimeMillis());
  }
}
