package io.mongocdc.workflows;

import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.MirrorTotals;
import io.mongocdc.workflows.model.OplogSpan;
import io.mongocdc.workflows.model.RejectedEdit;
import java.util.ArrayList;
import java.util.List;

/**
 * The mutable state of one workflow run: what continue-as-new carries ({@link CarriedState}) plus
 * what only this run needs. Plain deterministic code, no Temporal calls, so it is easy to test.
 */
final class FlowState {

  /** Status keeps this many rejected edits; older ones drop off. */
  static final int REJECTED_EDITS_KEPT = 10;

  MirrorConfig config;
  boolean setUp;
  Checkpoint checkpoint;
  long lastBatchId;
  Long committedAtMillis;
  MirrorTotals totals;
  boolean paused;
  boolean failed;
  String pausedReason;
  final List<EditRequest> pendingEdits = new ArrayList<>();
  final List<RejectedEdit> rejectedEdits = new ArrayList<>();
  String lastError;
  Long lastErrorAtMillis;
  int failedAttempts;
  int run;

  // This run only.
  MirrorPhase phase = MirrorPhase.SETTING_UP;
  boolean terminateRequested;
  /** Set by resume: ends a backoff wait early. */
  boolean retryNow;
  long batchInFlight;
  long batchesThisRun;
  /** The source's oplog span at the last batch, if the source reports it. */
  OplogSpan oplog;

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
  }

  CarriedState carry() {
    return new CarriedState(config, setUp, checkpoint, lastBatchId, committedAtMillis, totals,
        paused, failed, pausedReason, pendingEdits, rejectedEdits, lastError, lastErrorAtMillis,
        failedAttempts, run + 1);
  }

  /** The settings the next batch will use: the current ones with every pending edit applied. */
  MirrorSettings nextSettings() {
    MirrorSettings settings = config.settings();
    for (EditRequest edit : pendingEdits) {
      settings = settings.apply(edit);
    }
    return settings;
  }

  /**
   * Checks an edit against the settings it would apply to.
   *
   * @throws io.mongocdc.workflows.model.InvalidEditException naming every problem
   * @throws IllegalStateException if the mirror is terminating
   */
  EditRequest checkEdit(java.util.Map<String, ?> body) {
    if (terminateRequested || phase == MirrorPhase.TERMINATED) {
      throw new IllegalStateException("mirror '" + config.name() + "' is terminating; edits are no longer accepted");
    }
    EditRequest edit = EditRequest.fromJson(body);
    List<String> problems = nextSettings().apply(edit).problems();
    if (!problems.isEmpty()) {
      throw new io.mongocdc.workflows.model.InvalidEditException(problems);
    }
    return edit;
  }

  void reject(long nowMillis, String request, String reason) {
    rejectedEdits.add(new RejectedEdit(nowMillis, request, reason));
    while (rejectedEdits.size() > REJECTED_EDITS_KEPT) {
      rejectedEdits.remove(0);
    }
  }

  /** Pending edits take effect: called at a batch boundary, before the next batch starts. */
  void applyPendingEdits() {
    if (!pendingEdits.isEmpty()) {
      config = config.withSettings(nextSettings());
      pendingEdits.clear();
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
    if (outcome.stoppedAt() != null) {
      paused = true;
      pausedReason = "stopped before a control event (" + outcome.stoppedAt() + "); adjust the source or set "
          + "controlEventPolicy to IGNORE, then resume";
    }
  }

  void failed(String error, long nowMillis, boolean needsOperator) {
    lastError = error;
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

  MirrorStatus status(long nowMillis) {
    Long age = checkpoint == null ? null : Math.max(0, nowMillis / 1000 - checkpoint.clusterTimeSeconds());
    return new MirrorStatus(config.name(), phase, pausedReason, lastBatchId, batchInFlight, checkpoint,
        committedAtMillis, age, totals, lastError, lastErrorAtMillis, failedAttempts, config,
        List.copyOf(pendingEdits), List.copyOf(rejectedEdits), run, batchesThisRun,
        oplog == null || checkpoint == null ? null : oplog.headroomSeconds(checkpoint),
        oplog == null || checkpoint == null ? null : oplog.warning(checkpoint));
  }
}
