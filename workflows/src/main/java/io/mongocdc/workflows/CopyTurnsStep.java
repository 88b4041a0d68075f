package io.mongocdc.workflows;

import io.temporal.workflow.Workflow;

/**
 * Decides, at the start of each turn once edits took effect, whether the copies under way take
 * turns with the batches ({@link FlowState#copiesTakeTurns}): they do when every one of them was
 * asked for by an edit of the running mirror (an added collection, one copied again, history
 * turned on), so the batches go on streaming every collection. A set-up's or a resync's copy runs
 * before any batch.
 */
final class CopyTurnsStep implements Step {

  /**
   * The change id of copying the collections an edit of a running mirror asks for in rounds that
   * take turns with the batches, instead of before the next batch. Recorded only when such a copy
   * is pending.
   */
  static final String COPIES_BETWEEN_BATCHES_CHANGE = "copies-between-batches";

  private final FlowState state;

  CopyTurnsStep(Flow flow) {
    this.state = flow.state;
  }

  @Override
  public boolean due() {
    return true;
  }

  @Override
  public boolean preparesTurn() {
    return true;
  }

  @Override
  public void run() {
    state.copies.forgetFinishedCopiesBetweenBatches();
    // Asked only while such copies are pending: histories from before it have the batches wait for them.
    state.copiesTakeTurns = state.copies.goBetweenBatches()
        && Workflow.getVersion(COPIES_BETWEEN_BATCHES_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
  }
}
