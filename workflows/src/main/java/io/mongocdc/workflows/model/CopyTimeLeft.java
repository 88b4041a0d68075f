package io.mongocdc.workflows.model;

import java.util.List;

/**
 * How long a mirror's running copy is expected to take still: its documents left at the rate it
 * has copied them so far. Status, the console and the catalog's gauge all reckon it here, the
 * workflow from its carried snapshots, the catalog's readers from {@code snapshot_collections}.
 *
 * <p>The running copy is every collection whose snapshot is not done, and those done since the
 * earliest of them was planned (a first snapshot plans every collection, then copies them in
 * turn: the first ones' documents belong to its rate). Its rate is the documents those copied over
 * the time since that plan, batches and pauses between rounds included, so it is the pace the
 * stream's start point actually waits for. A collection's documents left are the source's estimate
 * less those copied, or its partitions left at the documents per partition so far if that is more:
 * the estimate errs towards more time, as the oplog headroom does, so an alert comes early rather
 * than late.
 */
public final class CopyTimeLeft {

  /**
   * The share of the oplog headroom a copy may be expected to take before status and the {@code
   * MongoCdcCopyOutlastsOplog} alert warn: the quarter left is the margin for the estimate's error
   * and for the stream to catch up once the copy is done.
   */
  public static final double HEADROOM_SHARE = 0.75;

  private CopyTimeLeft() {}

  /**
   * Seconds the running copy is expected to take still at {@code nowMillis}; 0 when no copy is
   * under way; null (unknown) until one of its partitions has finished with documents.
   */
  public static Long seconds(List<SnapshotProgress> snapshots, long nowMillis) {
    List<SnapshotProgress> running = snapshots.stream().filter(s -> !s.done()).toList();
    if (running.isEmpty()) {
      return 0L;
    }
    Long began = running.stream().map(SnapshotProgress::plannedAtMillis).filter(t -> t != null)
        .min(Long::compare).orElse(null);
    if (began == null) {
      return null;
    }
    long partitionsDone = 0;
    long copied = 0;
    long left = 0;
    for (SnapshotProgress snapshot : snapshots) {
      boolean inCopy = !snapshot.done()
          || (snapshot.finishedAtMillis() != null && snapshot.finishedAtMillis() >= began);
      if (inCopy) {
        partitionsDone += snapshot.partitionsDone();
        copied += snapshot.documentsCopied();
      }
      if (!snapshot.done()) {
        left += documentsLeft(snapshot);
      }
    }
    long elapsedMillis = nowMillis - began;
    if (partitionsDone == 0 || copied == 0 || elapsedMillis <= 0) {
      return null;
    }
    return (long) Math.ceil(left * (elapsedMillis / 1000.0) / copied);
  }

  /** The collection's documents not copied yet: by the source's estimate, or by its partitions left if more. */
  static long documentsLeft(SnapshotProgress snapshot) {
    long byEstimate = Math.max(0, snapshot.estimatedDocuments() - snapshot.documentsCopied());
    if (snapshot.partitionsDone() == 0) {
      return byEstimate;
    }
    long partitionsLeft = Math.max(0, snapshot.partitionsTotal() - snapshot.partitionsDone());
    long byPartitions = (long) Math.ceil((double) snapshot.documentsCopied() * partitionsLeft / snapshot.partitionsDone());
    return Math.max(byEstimate, byPartitions);
  }

  /**
   * A warning for status when the copy is expected to take more than {@link #HEADROOM_SHARE} of
   * the oplog headroom; null when it is not, or either is unknown.
   */
  public static String warning(Long secondsLeft, Long headroomSeconds) {
    if (secondsLeft == null || headroomSeconds == null || secondsLeft <= headroomSeconds * HEADROOM_SHARE) {
      return null;
    }
    return "the copy is expected to take " + secondsLeft + " s, more than three quarters of the " + headroomSeconds
        + " s the oplog still holds the stream's start point: speed the copy up (snapshotParallelPartitions), or"
        + " enlarge the oplog, before the mirror must resynchronise";
  }
}
