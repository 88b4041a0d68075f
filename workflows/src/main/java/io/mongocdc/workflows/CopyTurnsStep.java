package io.mongocdc.workflows;

import io.temporal.workflow.Workflow;

/**
 * Decides, at the start of each turn once edits took effect, how the copies under way share the
 * mirror with its batches. Since {@link #COPY_WHILE_STREAMING_CHANGE}, every copy (a set-up's, a
 * resync's, or one an edit asked for) is made beside the batches ({@link FlowState#copiesStream}).
 * Histories from before it replay as they ran: a copy an edit of the running mirror asked for took
 * turns with the batches ({@link FlowState#copiesTakeTurns}); a set-up's or a resync's ran before
 * any batch.
 */
final class CopyTurnsStep implements Step {

  /**
   * The change id of copying the collections an edit of a running mirror asks for in rounds that
   * take turns with the batches, instead of before the next batch. Recorded only when such a copy
   * is pending.
   */
  static final String COPIES_BETWEEN_BATCHES_CHANGE = "copies-between-batches";

  /**
   * The change id of copying beside the batches, which go on streaming every collection during any
   * copy. Recorded at the start of each turn while a copy is pending.
   */
  static final String COPY_WHILE_STREAMING_CHANGE = "copy-while-streaming";

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
    // Asked only while copies are pending: histories from before it copied first (or took turns).
    state.copiesStream = state.copies.pending()
        && Workflow.getVersion(COPY_WHILE_STREAMING_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
    state.copiesTakeTurns = !state.copiesStream && state.copies.goBetweenBatches()
        && Workflow.getVersion(COPIES_BETWEEN_BATCHES_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
  }
}
