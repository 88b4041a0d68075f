package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.EditResult;
import io.mongocdc.workflows.model.JsonText;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.ResyncAccepted;
import io.mongocdc.workflows.model.StopRequest;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInit;
import java.util.List;
import org.slf4j.Logger;

/**
 * The mirror's loop: each turn runs the first due {@linkplain Step step} (set up, copy, sweep,
 * rewrite, typed column work, else a batch: PullRecords, then CommitCheckpoint), with operator
 * controls between turns and continue-as-new to keep history bounded. The steps own the work;
 * this class keeps the loop, the handlers, pause and back-off, and continue-as-new.
 *
 * <p>The snapshot starts at the checkpoint taken before it and the batches start there too, while
 * it copies beside them ({@link CopiesBesideBatches}), so the changes made while it copies are
 * applied over the copied rows, or the copied rows under them; the destination's apply by position
 * absorbs the overlap either way. A collection added by an edit is copied the same way from the
 * committed checkpoint.
 *
 * <p>The workflow never retries an activity itself while its retry policy runs; once the policy
 * gives up on a retryable failure it waits (doubling, capped) and starts the turn again from the
 * committed checkpoint. A failure retrying cannot fix leaves the mirror FAILED until resumed.
 */
public class CdcFlowWorkflowImpl implements CdcFlowWorkflow {

  private static final Logger log = Workflow.getLogger(CdcFlowWorkflowImpl.class);

  private final FlowState state;
  /** The part of {@link #state} continue-as-new carries: {@code state.carried}. */
  private final CarriedState carried;
  private final Flow flow;
  private final EditChecks editChecks;
  /**
   * The steps, in the order a turn asks whether they are due. The order is part of the workflow's
   * command sequence (a step's {@code due} may record a version marker): add a step where its work
   * belongs, never reorder.
   */
  private final List<Step> steps;

  /**
   * Builds the state before any handler runs, so a signal sent with the start finds it. An input
   * that cannot be read fails the workflow here: thrown from a {@code @WorkflowInit} constructor,
   * a Temporal failure fails the execution, while the SDK's own binding error would fail every
   * workflow task, forever, without saying why where an operator looks.
   */
  @WorkflowInit
  public CdcFlowWorkflowImpl(Object input) {
    CdcFlowInput flowInput = readInput(input);
    CarriedState carried = flowInput.carried() != null ? flowInput.carried() : CarriedState.initial(flowInput.config());
    if (carried.config == null) {
      // Every handler reads the configuration; without one the workflow must not get that far.
      throw ApplicationFailure.newNonRetryableFailure("invalid mirror: no mirror configuration given",
          FailureTypes.INVALID_CONFIGURATION);
    }
    this.state = new FlowState(carried);
    this.carried = carried;
    this.flow = new Flow(state, flowInput.isResync());
    this.editChecks = new EditChecks(state);
    this.steps = List.of(
        new SetUpStep(flow),
        new PendingEditsStep(flow),
        new CopyTurnsStep(flow),
        new ResyncStep(flow),
        new FieldRuleRewriteStep(flow),
        new CopyBesideBatchesStep(flow),
        new CopyStep(flow),
        new SweepStep(flow),
        new TypedColumnsStep(flow),
        new BatchStep(flow));
    if (flowInput.chosenStart() != null) {
      carried.chosenStart = flowInput.chosenStart();
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
          || state.copies.partitionsThisRun >= PartitionCopies.PARTITIONS_PER_RUN
          || Workflow.getInfo().isContinueAsNewSuggested()) {
        // The partitions under way finish first (none is copied twice); the next run starts the
        // copier again. The batches wait meanwhile: at most one partition's copy, once a run.
        flow.copying.drain();
        continueAsNew();
      }
      flow.copying.cancelIfHeldTooLong(state.batchesThisRun);
      if (carried.paused) {
        waitWhilePaused();
        continue;
      }
      state.phase = !carried.setUp ? MirrorPhase.SETTING_UP
          : state.copies.pending() ? MirrorPhase.SNAPSHOTTING : MirrorPhase.RUNNING;
      attempt();
    }
    flow.copying.drain();
    flow.enter(MirrorPhase.TERMINATED);
    log.info("mirror {} terminated after batch {}", carried.config.name(), carried.lastBatchId);
    return state.status(Workflow.currentTimeMillis());
  }

  /** One turn: the steps that prepare it, then the first due step that does work. */
  private void turn() {
    for (Step step : steps) {
      if (step.due()) {
        step.run();
        if (!step.preparesTurn()) {
          return;
        }
      }
    }
  }

  /** Runs a turn; a failure is recorded and decides whether to back off or wait. */
  private void attempt() {
    try {
      turn();
    } catch (ActivityFailure | CanceledFailure e) {
      if (flow.inFlight.takeOperatorCancel()) {
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
        flow.recorder.record();
        // A pause or terminate ends the wait, and so does resume: "try again now".
        Workflow.await(CdcActivityOptions.workflowBackoff(carried.failedAttempts),
            () -> carried.paused || state.terminateRequested || state.retryNow);
      }
    }
  }

  private void waitWhilePaused() {
    flow.enter(carried.failed ? MirrorPhase.FAILED : MirrorPhase.PAUSED);
    // Signals grow history while paused too; the loop continues as new if Temporal suggests it.
    Workflow.await(() -> !carried.paused || state.terminateRequested || Workflow.getInfo().isContinueAsNewSuggested());
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
      state.edits.reject(Workflow.currentTimeMillis(), JsonText.of(body), e.getMessage());
      log.warn("mirror {}: signal rejected: {}", carried.config.name(), e.getMessage());
      return null;
    }
  }

  private void cancelInFlightIf(boolean cancel) {
    if (cancel) {
      flow.inFlight.cancelByOperator();
      flow.copying.cancelByOperator();
    }
  }

  @Override
  public void requestEdit(Object edit) {
    try {
      carried.pendingEdits.add(editChecks.check(edit, currentEditChecks()));
    } catch (IllegalArgumentException | IllegalStateException e) {
      state.edits.reject(Workflow.currentTimeMillis(), JsonText.of(edit), e.getMessage());
      log.warn("mirror {}: edit by signal rejected: {}", carried.config.name(), e.getMessage());
    }
  }

  @Override
  public EditResult edit(Object edit) {
    EditRequest accepted = editChecks.check(edit, currentEditChecks());
    carried.pendingEdits.add(accepted);
    long nextBatch = carried.lastBatchId + (state.batchInFlight != 0 ? 2 : 1);
    return new EditResult(state.edits.nextSettings(), nextBatch);
  }

  @Override
  public void validateEdit(Object edit) {
    editChecks.check(edit);
  }

  /** Whether the edit handlers check as this release does (see EditChecks.EDIT_CHECKS_ON_PATHS_CHANGE). */
  private static boolean currentEditChecks() {
    return Workflow.getVersion(EditChecks.EDIT_CHECKS_ON_PATHS_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  @Override
  public ResyncAccepted resync() {
    validateResync();
    carried.resyncNeeded = true;
    // The operator asked for it: a mirror paused or failed (the history lost) goes on with it.
    state.resume();
    long afterBatch = carried.lastBatchId + (state.batchInFlight != 0 ? 1 : 0);
    log.info("mirror {}: resync asked for by the operator, after batch {}", carried.config.name(), afterBatch);
    return new ResyncAccepted(afterBatch, carried.pendingEdits.size(),
        carried.fieldRuleRewrites.isEmpty() ? null : carried.fieldRuleRewrites.get(0).describe());
  }

  @Override
  public void validateResync() {
    if (state.terminateRequested || state.phase == MirrorPhase.TERMINATED) {
      throw new IllegalStateException("mirror '" + carried.config.name() + "' is terminating; it cannot resync");
    }
    if (!carried.setUp) {
      throw new IllegalStateException("mirror '" + carried.config.name() + "' is not set up yet; it copies its"
          + " collections when it is");
    }
  }

  @Override
  public MirrorStatus status() {
    return state.status(Workflow.currentTimeMillis());
  }
}
