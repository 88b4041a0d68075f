package io.mongocdc.workflows;

import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.BatchFreshness;
import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.CopyTimeLeft;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRulesWritten;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.OplogSpan;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import java.util.List;
import java.util.TreeSet;

/**
 * The mutable state of one workflow run: what continue-as-new carries ({@link CarriedState}) plus
 * what only this run needs, with the parts that belong together in their own classes ({@link
 * Copies}, {@link PendingEdits}). Plain deterministic code, no Temporal calls, so it is easy to
 * test.
 */
final class FlowState {

  /** What continue-as-new carries: changed in place, handed over whole by {@link #carry}. */
  final CarriedState carried;
  final Copies copies;
  final PendingEdits edits;

  // This run only.
  MirrorPhase phase = MirrorPhase.SETTING_UP;
  boolean terminateRequested;
  /** Set by resume: ends a backoff wait early. */
  boolean retryNow;
  long batchInFlight;
  long batchesThisRun;
  /** The source's oplog span at the last batch, if the source reports it. */
  OplogSpan oplog;
  /**
   * {@link #batchesThisRun} when typed columns were last aligned or filled: the next slice of
   * filling waits for a batch after it, so streaming waits at most one slice for a large table.
   */
  long typedColumnsFilledAtBatch;
  /**
   * The copies under way this turn were asked for by edits of the running mirror: they take turns
   * with the batches (decided by {@link CopyTurnsStep} at the start of each turn).
   */
  boolean copiesTakeTurns;
  /**
   * The copies under way are made beside the batches, which go on streaming every collection
   * meanwhile (decided by {@link CopyTurnsStep} at the start of each turn, for histories that
   * recorded {@link CopyTurnsStep#COPY_WHILE_STREAMING_CHANGE}).
   */
  boolean copiesStream;

  FlowState(CarriedState carried) {
    this.carried = carried;
    this.copies = new Copies(carried);
    this.edits = new PendingEdits(carried, copies);
  }

  /**
   * The carried state, counted as the next run's: the last thing a run does, as it continues as
   * new.
   */
  CarriedState carry() {
    carried.run++;
    return carried;
  }

  /** Remembers every path {@code rules} hash (see {@link CarriedState#hashedPaths}). */
  void rememberHashedPaths(FieldRuleSettings rules) {
    rules.collections().forEach((collection, each) -> {
      if (!each.hash().isEmpty()) {
        TreeSet<String> paths = new TreeSet<>(carried.hashedPaths.getOrDefault(collection, List.of()));
        paths.addAll(each.hash());
        carried.hashedPaths.put(collection, List.copyOf(paths));
      }
    });
  }

  /**
   * Typed columns were aligned or filled up to {@code aligned}'s point; the next slice waits for a
   * batch.
   *
   * @return whether they are filled
   */
  boolean typedColumnsAligned(TypedColumnsAligned aligned) {
    carried.typedColumnsBackfillFrom = aligned.resumeAfter();
    typedColumnsFilledAtBatch = batchesThisRun;
    return aligned.resumeAfter() == null;
  }

  /** True if {@code autoResync} may act now: never yet, or a batch committed since it last did. */
  boolean mayAutoResync() {
    return carried.autoResyncedAtMillis == null
        || (carried.committedAtMillis != null && carried.committedAtMillis > carried.autoResyncedAtMillis);
  }

  void committed(BatchOutcome outcome, Checkpoint stored, long nowMillis) {
    carried.checkpoint = stored;
    carried.lastBatchId = outcome.batchId();
    carried.committedAtMillis = nowMillis;
    carried.totals = carried.totals.plus(outcome.figures());
    batchesThisRun++;
    carried.failedAttempts = 0;
    oplogRead(outcome.oplog());
    if (outcome.figures().get(BatchFigures.FRESHNESS) != null) {
      carried.lastFreshness = outcome.figures().get(BatchFigures.FRESHNESS);
    }
    if (outcome.stoppedAt() != null) {
      carried.paused = true;
      carried.pausedReason = "stopped before a control event (" + outcome.stoppedAt()
          + "); adjust the source or set controlEventPolicy to IGNORE, then resume";
    }
  }

  /**
   * The source's oplog span as a batch or a copied partition last read it; null (not reported)
   * keeps the last one.
   */
  void oplogRead(OplogSpan span) {
    if (span != null) {
      oplog = span;
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
  /**
   * @param withFieldRules whether the change carries {@link #fieldRulesWritten} (runs from before
   *     it was recorded do not)
   */
  MirrorStateChange stateChange(long nowMillis, boolean withFieldRules) {
    boolean failing = phase == MirrorPhase.BACKING_OFF || phase == MirrorPhase.FAILED;
    String reason = phase == MirrorPhase.PAUSED || phase == MirrorPhase.FAILED ? carried.pausedReason : null;
    return new MirrorStateChange(carried.config.name(), phase, reason, failing ? carried.lastError : null,
        failing ? carried.lastFailureType : null, failing ? carried.failedAttempts : 0, nowMillis,
        carried.stateChanges + 1, carried.config, carried.startedFrom, withFieldRules ? fieldRulesWritten() : null);
  }

  /**
   * What the rows the mirror wrote hold under its field rules, for the catalog; null before set-up,
   * so a mirror created again does not overwrite the record of its earlier rows before it read it.
   */
  FieldRulesWritten fieldRulesWritten() {
    return carried.setUp ? new FieldRulesWritten(carried.config.settings().fieldRules(),
        carried.fieldRuleRewrites, carried.hashedPaths) : null;
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
        carried.startedFrom, carried.fieldRuleRewrites.isEmpty() ? null : carried.fieldRuleRewrites.get(0).describe(),
        CopyTimeLeft.seconds(carried.snapshots, nowMillis));
  }
}
