package io.mongocdc.activities;

import io.mongocdc.ports.SnapshotCatalog;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.SnapshotPlan;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A snapshot catalog in memory with the contract of the real one. */
public final class InMemorySnapshotCatalog implements SnapshotCatalog {

  private record Stored(StreamPosition start, List<PlannedPartition> partitions, long estimatedDocuments) {}

  private final Map<String, Stored> plans = new HashMap<>();
  /** By mirror, then collection: when its latest copy finished. */
  private final Map<String, Map<String, Instant>> finished = new HashMap<>();

  @Override
  public synchronized Optional<SnapshotPlan> plan(String mirror, String collection, StreamPosition start) {
    Stored stored = plans.get(mirror + "/" + collection);
    if (stored == null || !stored.start().equals(start)) {
      return Optional.empty();
    }
    List<Integer> pending = new ArrayList<>();
    long copied = 0;
    for (int i = 0; i < stored.partitions().size(); i++) {
      PlannedPartition partition = stored.partitions().get(i);
      if (partition.done()) {
        copied += partition.documents();
      } else {
        pending.add(i);
      }
    }
    return Optional.of(new SnapshotPlan(collection, stored.partitions().size(), pending, copied,
        stored.estimatedDocuments()));
  }

  @Override
  public synchronized SnapshotPlan storePlan(String mirror, String collection, StreamPosition start, String filter,
      long estimatedDocuments, List<String> idRanges) {
    List<PlannedPartition> partitions = new ArrayList<>();
    idRanges.forEach(range -> partitions.add(new PlannedPartition(range, false, 0, 0)));
    plans.put(mirror + "/" + collection, new Stored(start, partitions, estimatedDocuments));
    finished.getOrDefault(mirror, new HashMap<>()).remove(collection);
    return plan(mirror, collection, start).orElseThrow();
  }

  @Override
  public synchronized PlannedPartition partition(String mirror, String collection, int partition) {
    return plans.get(mirror + "/" + collection).partitions().get(partition);
  }

  @Override
  public void partitionStarted(String mirror, String collection, int partition) {}

  @Override
  public synchronized void partitionDone(String mirror, String collection, int partition, long documents, long bytes) {
    List<PlannedPartition> partitions = plans.get(mirror + "/" + collection).partitions();
    if (!partitions.get(partition).done()) {
      partitions.set(partition, new PlannedPartition(partitions.get(partition).idRange(), true, documents, bytes));
      if (partitions.stream().allMatch(PlannedPartition::done)) {
        finished.computeIfAbsent(mirror, m -> new HashMap<>()).put(collection, Instant.now());
      }
    }
  }

  @Override
  public synchronized Map<String, Instant> copiesFinished(String mirror) {
    return Map.copyOf(finished.getOrDefault(mirror, Map.of()));
  }
}
