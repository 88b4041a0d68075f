package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import io.temporal.workflow.Workflow;
import org.slf4j.Logger;

/**
 * Typed column work between batches: the declared indexes, once no copy is under way; otherwise
 * one slice of filling columns an edit added from {@code doc}, then a batch, so streaming waits
 * at most one slice for the backfill of a large table. Columns are aligned (added, dropped) by
 * {@link PendingEditsStep} before the edits that declare them apply.
 */
final class TypedColumnsStep implements Step {

  private static final Logger log = Workflow.getLogger(TypedColumnsStep.class);

  private final Flow flow;
  private final CarriedState carried;
  /** What {@link #due} found due: the indexes (else a slice of filling). */
  private boolean indexes;

  TypedColumnsStep(Flow flow) {
    this.flow = flow;
    this.carried = flow.carried;
  }

  @Override
  public boolean due() {
    indexes = carried.typedColumnIndexesPending && !flow.state.copies.pending() && SharedChanges.typedColumns();
    return indexes || (carried.typedColumnsBackfillFrom != null
        && flow.state.batchesThisRun > flow.state.typedColumnsFilledAtBatch && SharedChanges.typedColumns());
  }

  @Override
  public void run() {
    if (indexes) {
      int created = flow.activities.createTypedColumnIndexes(carried.config);
      carried.typedColumnIndexesPending = false;
      log.info("mirror {}: {} typed column indexes created", flow.name(), created);
    } else if (flow.state.typedColumnsAligned(flow.activities.alignTypedColumns(
        TypedColumnsRequest.resume(carried.config, carried.typedColumnsBackfillFrom)))) {
      log.info("mirror {}: typed columns filled", flow.name());
    }
  }
}
