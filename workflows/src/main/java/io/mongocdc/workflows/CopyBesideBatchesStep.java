package io.mongocdc.workflows;

/**
 * Starts the copier beside the batches ({@link CopiesBesideBatches}) when copies are pending and
 * stream ({@link FlowState#copiesStream}), then lets the turn go on to the batch: the copy never
 * stops the change stream. A field rule rewrite under way finishes first, as it does before any
 * copy. A copier that ended with a failure has the turn throw it, so the mirror backs off (or waits
 * for the operator) as for a failed batch, and the copy starts again after.
 */
final class CopyBesideBatchesStep implements Step {

  private final Flow flow;

  CopyBesideBatchesStep(Flow flow) {
    this.flow = flow;
  }

  @Override
  public boolean due() {
    return flow.state.copiesStream && flow.state.copies.pending() && flow.carried.fieldRuleRewrites.isEmpty()
        && flow.copying.mayStart();
  }

  @Override
  public boolean preparesTurn() {
    return true;
  }

  @Override
  public void run() {
    RuntimeException failure = flow.copying.takeFailure();
    if (failure != null) {
      throw failure;
    }
    flow.copying.start();
  }
}
