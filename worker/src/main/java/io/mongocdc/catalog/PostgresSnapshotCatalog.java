package io.mongocdc.catalog;

import io.mongocdc.ports.SnapshotCatalog;
import io.mongocdc.catalog.jooq.tables.records.SnapshotPartitionsRecord;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.SnapshotPlan;
import java.time.Instant;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** The activities' snapshot port on the PostgreSQL catalog. */
public final class PostgresSnapshotCatalog implements SnapshotCatalog {

  private final SnapshotStore store;

  public PostgresSnapshotCatalog(Catalog catalog) {
    this.store = catalog.snapshots();
  }

  @Override
  public Optional<SnapshotPlan> plan(String mirror, String collection, StreamPosition start) {
    return store.load(mirror, collection)
        .filter(plan -> plan.start().equals(startOf(start)))
        .map(plan -> toPlan(collection, plan));
  }

  @Override
  public SnapshotPlan storePlan(String mirror, String collection, StreamPosition start, String filter,
      long estimatedDocuments, List<String> idRanges) {
    store.store(mirror, collection, startOf(start), filter, estimatedDocuments, idRanges);
    return plan(mirror, collection, start)
        .orElseThrow(() -> new IllegalStateException("the snapshot plan of " + collection + " was not stored"));
  }

  @Override
  public PlannedPartition partition(String mirror, String collection, int partition) {
    SnapshotPartitionsRecord row = store.partition(mirror, collection, partition)
        .orElseThrow(() -> new IllegalArgumentException(
            "mirror " + mirror + " has no snapshot partition " + partition + " of " + collection));
    return new PlannedPartition(row.getIdRange(), SnapshotStore.isDone(row), row.getDocuments(), row.getBytes());
  }

  @Override
  public void partitionStarted(String mirror, String collection, int partition) {
    store.started(mirror, collection, partition);
  }

  @Override
  public void partitionDone(String mirror, String collection, int partition, long documents, long bytes) {
    store.done(mirror, collection, partition, documents, bytes);
  }

  @Override
  public void partitionDone(String mirror, String collection, int partition, long documents, long bytes,
      Map<String, Map<String, Long>> drift) {
    store.done(mirror, collection, partition, documents, bytes, drift);
  }

  @Override
  public Map<String, Instant> copiesFinished(String mirror) {
    return store.finished(mirror);
  }

  private static SnapshotStore.Start startOf(StreamPosition start) {
    Objects.requireNonNull(start, "start");
    // Stored as CheckpointStore stores cluster times: the BSON timestamp's 64-bit value.
    ResumeToken token = start.tokenOrNull();
    return new SnapshotStore.Start(token == null ? null : token.data(), start.clusterTimeOrZero().getValue());
  }

  private static SnapshotPlan toPlan(String collection, SnapshotStore.Plan plan) {
    List<Integer> pending = new ArrayList<>();
    long copied = 0;
    for (SnapshotPartitionsRecord row : plan.partitions()) {
      if (SnapshotStore.isDone(row)) {
        copied += row.getDocuments();
      } else {
        pending.add(row.getPartitionNo());
      }
    }
    return new SnapshotPlan(collection, plan.partitionsTotal(), pending, copied, plan.estimatedDocuments());
  }
}
