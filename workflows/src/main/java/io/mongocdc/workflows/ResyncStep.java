package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.MirrorPhase;
import io.temporal.workflow.Workflow;
import java.util.List;
import org.slf4j.Logger;

/**
 * A resync ({@code autoResync} found the source's history lost, or the operator asked with the
 * {@code resync} update): a new starting point, every collection copied again (before any batch),
 * then the rows the copy did not see swept ({@link SweepStep}). It runs in the same workflow run,
 * after the pending edits took effect, so what the run carries (edits, a field rule rewrite, the
 * paths hashed before, the batch numbers) carries on.
 */
final class ResyncStep implements Step {

  private static final Logger log = Workflow.getLogger(ResyncStep.class);

  private final Flow flow;
  private final CarriedState carried;

  ResyncStep(Flow flow) {
    this.flow = flow;
    this.carried = flow.carried;
  }

  @Override
  public boolean due() {
    // After the partitions copied beside the batches from the old start (none starts meanwhile).
    return carried.resyncNeeded && !flow.copying.running();
  }

  @Override
  public void run() {
    flow.enter(MirrorPhase.SNAPSHOTTING);
    Checkpoint start = flow.activities.takeStartingPoint(carried.config);
    List<String> collections = carried.config.collections().isEmpty()
        ? flow.activities.listSourceCollections(carried.config)
        : carried.config.collections();
    carried.checkpoint = start;
    carried.resyncStart = start;
    flow.state.copies.resyncFromCheckpoint(collections, ResyncSweeps.of(flow, collections));
    carried.autoResyncedAtMillis = Workflow.currentTimeMillis();
    carried.resyncNeeded = false;
    log.info("mirror {}: resynchronising {} from {}", flow.name(), collections, start.describe());
  }
}
