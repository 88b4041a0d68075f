package io.mongocdc.workflows.model;

/**
 * A collection's snapshot as the workflow tracks it (status shows it; continue-as-new carries
 * it). The catalog's {@code snapshot_partitions} rows are the record of which partitions are
 * done; the workflow asks for them again after continue-as-new.
 *
 * @param collection the collection copied
 * @param position the checkpoint the copy started at: change events after it are replayed
 *     over the copied rows, so none is missed
 * @param state where the copy is
 * @param partitionsTotal partitions planned, 0 until planned
 * @param partitionsDone partitions copied
 * @param documentsCopied documents copied by the partitions done
 * @param estimatedDocuments the source's estimate of the collection's documents when it was
 *     planned; 0 until planned (and in histories from before it was kept)
 * @param plannedAtMillis workflow time of the first plan of this copy, epoch milliseconds; null
 *     until planned (and in histories from before it was kept)
 * @param finishedAtMillis workflow time the last partition was copied; null until then (and in
 *     histories from before it was kept)
 */
public record SnapshotProgress(
    String collection, Checkpoint position, State state, int partitionsTotal, int partitionsDone, long documentsCopied,
    long estimatedDocuments, Long plannedAtMillis, Long finishedAtMillis) {

  /** Where a collection's snapshot is. */
  public enum State {
    /** Waiting for its partitions to be planned. */
    PENDING,
    /** Partitions planned; copying. */
    COPYING,
    /** Every partition copied. */
    DONE
  }

  public static SnapshotProgress pending(String collection, Checkpoint position) {
    return new SnapshotProgress(collection, position, State.PENDING, 0, 0, 0, 0, null, null);
  }

  public boolean done() {
    return state == State.DONE;
  }

  /** As {@code plan} says, at {@code nowMillis}: the copy's plan time is its first plan's. */
  public SnapshotProgress planned(SnapshotPlan plan, long nowMillis) {
    int done = plan.partitionsTotal() - plan.pendingPartitions().size();
    boolean finished = plan.pendingPartitions().isEmpty();
    return new SnapshotProgress(collection, position, finished ? State.DONE : State.COPYING, plan.partitionsTotal(),
        done, plan.documentsCopied(), plan.estimatedDocuments(), plannedAtMillis == null ? nowMillis : plannedAtMillis,
        finished ? nowMillis : null);
  }

  /** With {@code partition} copied, at {@code nowMillis}. */
  public SnapshotProgress copied(SnapshotPartitionCopied partition, long nowMillis) {
    int done = partitionsDone + 1;
    boolean finished = done >= partitionsTotal;
    return new SnapshotProgress(collection, position, finished ? State.DONE : State.COPYING,
        partitionsTotal, done, documentsCopied + partition.documents(), estimatedDocuments, plannedAtMillis,
        finished ? Long.valueOf(nowMillis) : null);
  }
}
