package io.mongocdc.workflows.model;

import java.util.List;

/**
 * A collection's snapshot plan as the workflow needs it: partition numbers only. The partitions'
 * {@code _id} bounds stay in the catalog, so document ids never enter workflow history.
 *
 * @param collection the collection
 * @param partitionsTotal partitions planned
 * @param pendingPartitions partition numbers (0-based) not copied yet, ascending
 * @param documentsCopied documents copied by the partitions already done
 * @param estimatedDocuments the source's estimate of the collection's documents when it was
 *     planned: what the copy's expected time left is reckoned from (0 in histories from before it)
 */
public record SnapshotPlan(String collection, int partitionsTotal, List<Integer> pendingPartitions, long documentsCopied,
    long estimatedDocuments) {

  public SnapshotPlan {
    pendingPartitions = pendingPartitions == null ? List.of() : List.copyOf(pendingPartitions);
  }
}
