package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.SweepRequest;
import io.temporal.workflow.Workflow;
import org.slf4j.Logger;

/**
 * After a resync's copy (before any batch) or a collection's copy again (between batches): every
 * row the copy saw carries its starting point's position or a newer change's, so a row with an
 * older position is one the copy did not see (its document was deleted while the history was
 * lost, or the row was damaged by hand) and is deleted.
 */
final class SweepStep implements Step {

  private static final Logger log = Workflow.getLogger(SweepStep.class);

  private final Flow flow;
  private final CarriedState carried;

  SweepStep(Flow flow) {
    this.flow = flow;
    this.carried = flow.carried;
  }

  @Override
  public boolean due() {
    return !carried.sweepPending.isEmpty() && !flow.state.copies.pending();
  }

  @Override
  public void run() {
    flow.enter(MirrorPhase.SNAPSHOTTING);
    while (!carried.sweepPending.isEmpty()) {
      String collection = carried.sweepPending.get(0);
      long deleted = flow.activities.sweepUnseenRows(
          new SweepRequest(carried.config, collection, flow.state.copies.sweepPosition(collection)));
      log.info("mirror {}: {} rows of {} the resync's copy did not see deleted", flow.name(), deleted, collection);
      carried.sweepPending.remove(0);
    }
  }
}
