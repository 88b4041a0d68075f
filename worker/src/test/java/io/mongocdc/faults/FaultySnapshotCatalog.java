package io.mongocdc.faults;

import io.mongocdc.ports.SnapshotCatalog;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.SnapshotPlan;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The real snapshot catalog (one for the test JVM, each scenario under its own mirror name),
 * with faults when a partition is recorded done: the record fails before or after it is stored
 * (reply lost), or the worker crashes right after it is stored. It also tells the oracle which
 * partitions are done, and since when.
 */
final class FaultySnapshotCatalog implements SnapshotCatalog {

  private final Scenario scenario;

  FaultySnapshotCatalog(Scenario scenario) {
    this.scenario = scenario;
  }

  @Override
  public Optional<SnapshotPlan> plan(String m, String collection, StreamPosition start) {
    return SuiteCatalog.snapshots().plan(m, collection, start);
  }

  @Override
  public SnapshotPlan storePlan(String m, String collection, StreamPosition start, String filter,
      long estimatedDocuments, List<String> idRanges) {
    return SuiteCatalog.snapshots().storePlan(m, collection, start, filter, estimatedDocuments, idRanges);
  }

  @Override
  public Map<String, Instant> copiesFinished(String m) {
    return SuiteCatalog.snapshots().copiesFinished(m);
  }

  @Override
  public PlannedPartition partition(String m, String collection, int partition) {
    return SuiteCatalog.snapshots().partition(m, collection, partition);
  }

  @Override
  public void partitionStarted(String m, String collection, int partition) {
    SuiteCatalog.snapshots().partitionStarted(m, collection, partition);
  }

  @Override
  public void partitionDone(String m, String collection, int partition, long documents, long bytes) {
    int n = scenario.partitionsRecorded.incrementAndGet();
    if (n == scenario.faults.doneFailAt && !scenario.faults.doneFailAfterStoring) {
      scenario.count("fault: partition done fails before storing", 1);
      throw new IllegalStateException("injected: the catalog connection was lost");
    }
    SuiteCatalog.snapshots().partitionDone(m, collection, partition, documents, bytes);
    // Attempts that start from now on find the partition done.
    long startedBefore = scenario.attemptSequence.get();
    String range = IdRange.fromJson(SuiteCatalog.snapshots().partition(m, collection, partition).idRange()).toJson();
    scenario.recordedDone.putIfAbsent(collection + " " + range, startedBefore);
    if (n == scenario.faults.doneFailAt) {
      scenario.count("fault: partition done fails after storing", 1);
      throw new IllegalStateException("injected: the catalog stored the partition, then its reply was lost");
    }
    for (PlannedGate g : scenario.faults.gates) {
      if (g.point == GatePoint.RECORDED_DONE && g.open == n) {
        // The worker dies here, between the catalog's record and the report to Temporal.
        g.thread = Thread.currentThread();
        try {
          g.gate.pass();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("the worker stopped after the partition was recorded done", e);
        }
      }
    }
  }
}
