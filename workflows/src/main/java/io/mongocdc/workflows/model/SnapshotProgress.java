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
 */
public record SnapshotProgress(
    String collection, Checkpoint position, State state, int partitionsTotal, int partitionsDone, long documentsCopied) {

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
    return new SnapshotProgress(collection, position, State.PENDING, 0, 0, 0);
  }

  public boolean done() {
    return state == State.DONE;
  }

  public SnapshotProgress planned(SnapshotPlan plan) {
    int done = plan.partitionsTotal() - plan.pendingPartitions().size();
    return new SnapshotProgress(collection, position,
        plan.pendingPartitions().isEmpty() ? State.DONE : State.COPYING, plan.partitionsTotal(), done,
        plan.documentsCopied());
  }

  public SnapshotProgress copied(SnapshotPartitionCopied partition) {
    int done = partitionsDone + 1;
    return new SnapshotProgress(collection, position, done >= partitionsTotal ? State.DONE : State.COPYING,
        partitionsTotal, done, documentsCopied + partition.documents());
  }
}
