package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.temporal.workflow.Workflow;
import org.slf4j.Logger;

/**
 * One slice of the rewrite of the rows written before field rules were added (queued by {@link
 * PendingEditsStep}), then a batch. It goes before any copy: a copy writes its rows with the rules
 * already, which a rewrite must not reach. The rewrite of the rows past the checkpoint (a
 * cancelled or failed batch's, {@link FieldRuleRewrite#after}) goes before any batch too: its
 * replay writes rows under the rules, which the rewrite must not reach either.
 */
final class FieldRuleRewriteStep implements Step {

  private static final Logger log = Workflow.getLogger(FieldRuleRewriteStep.class);
  /**
   * A run that has taken no batch yet takes a slice first. Before it, a slice waited for a batch of
   * its own run, and a mirror that continues as new after every batch ({@code
   * continueAsNewEveryBatches} 1) never had one: its rewrite never moved and its rows kept what the
   * rules protect (fault seeds 32, 57, 62).
   */
  static final String REWRITE_AT_RUN_START_CHANGE = "rewrite-at-run-start";

  private final Flow flow;
  private final CarriedState carried;
  /** {@code batchesThisRun} at the last slice: the next waits for a batch, unless a copy waits for it. */
  private long rewroteAtBatch;
  /** Whether this run took a slice: the first of a run does not wait for a batch. */
  private boolean slicedThisRun;

  FieldRuleRewriteStep(Flow flow) {
    this.flow = flow;
    this.carried = flow.carried;
  }

  @Override
  public boolean due() {
    if (carried.fieldRuleRewrites.isEmpty()) {
      return false;
    }
    boolean turn = flow.state.batchesThisRun > rewroteAtBatch;
    // A copy waits for the rewrite; one that streams lets the batches take turns with its slices.
    boolean copyWaits = (flow.state.copies.pending() || !carried.sweepPending.isEmpty()) && !flow.state.copiesStream;
    return (turn || copyWaits || carried.fieldRuleRewrites.get(0).after() != null || firstOfRun())
        && SharedChanges.fieldRuleRewrite();
  }

  /** A run's first slice, before any batch of the run (asked only then, so older histories replay as they ran). */
  private boolean firstOfRun() {
    return flow.state.batchesThisRun == 0 && !slicedThisRun
        && Workflow.getVersion(REWRITE_AT_RUN_START_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
  }

  @Override
  public void run() {
    FieldRuleRewrite slice = carried.fieldRuleRewrites.get(0);
    FieldRuleRewrite next = flow.activities.rewriteFieldRules(carried.config, slice);
    slicedThisRun = true;
    if (slice.after() == null) {
      // The rows past the checkpoint were a turn of their own: the rewrite up to it starts at once.
      rewroteAtBatch = flow.state.batchesThisRun;
    }
    if (next.done()) {
      carried.fieldRuleRewrites.remove(0);
      log.info("mirror {}: field rule rewrite done: {}", flow.name(), next.describe());
    } else {
      carried.fieldRuleRewrites.set(0, next);
    }
  }
}
