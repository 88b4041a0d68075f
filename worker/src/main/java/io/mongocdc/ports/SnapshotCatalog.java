package io.mongocdc.ports;

import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.SnapshotPlan;
import java.time.Instant;
import java.util.Map;
import java.util.List;
import java.util.Optional;

/**
 * The catalog's record of snapshots: each collection's plan (its partitions' {@code _id} ranges)
 * and which partitions are copied. It is what lets a snapshot resume without reading a finished
 * partition again.
 */
public interface SnapshotCatalog {

  /** The stored plan of a collection's snapshot, if there is one for this start position. */
  Optional<SnapshotPlan> plan(String mirror, String collection, StreamPosition start);

  /**
   * Stores a new plan, replacing any plan of the collection (for another start, whose copied
   * rows would be older than this start and must be copied again).
   *
   * @param idRanges each partition's range, as {@code IdRange#toJson}, in partition order
   */
  SnapshotPlan storePlan(
      String mirror, String collection, StreamPosition start, String filter, long estimatedDocuments, List<String> idRanges);

  /** A planned partition. @throws IllegalArgumentException if there is no such partition */
  PlannedPartition partition(String mirror, String collection, int partition);

  /** Records that a copy of the partition starts (counts attempts). */
  void partitionStarted(String mirror, String collection, int partition);

  /**
   * Records the partition copied; the collection's snapshot is done with its last partition. A
   * partition already done keeps its first figures.
   */
  void partitionDone(String mirror, String collection, int partition, long documents, long bytes);

  /** Like {@link #partitionDone(String, String, int, long, long)}, also counting its typed column drift once. */
  default void partitionDone(String mirror, String collection, int partition, long documents, long bytes,
      Map<String, Map<String, Long>> drift) {
    partitionDone(mirror, collection, partition, documents, bytes);
  }

  /**
   * When the latest copy of each of the mirror's collections finished, for those whose copy is
   * done (a collection being copied again has none until it is): a batch's freshness leaves out
   * the changes it replays over a copy that made them visible already.
   */
  default Map<String, Instant> copiesFinished(String mirror) {
    return Map.of();
  }

  /**
   * One partition of a stored plan.
   *
   * @param idRange the range, as {@code IdRange#toJson}
   * @param done whether it was copied
   * @param documents documents copied, once done
   * @param bytes bytes copied, once done
   */
  record PlannedPartition(String idRange, boolean done, long documents, long bytes) {}
}
