package io.mongocdc.workflows.model;

import java.util.List;

/**
 * The answer to the {@code status} query.
 *
 * @param mirror the mirror's name
 * @param state what the workflow is doing
 * @param pausedReason why it is paused or failed; null when running
 * @param committedBatchId the last batch whose checkpoint was committed (0 before the first)
 * @param batchInFlight the batch being pulled, or 0
 * @param committedCheckpoint the committed checkpoint; null before setup took the starting point
 * @param committedAtMillis workflow time of the last commit, epoch milliseconds
 * @param checkpointAgeSeconds how far the committed checkpoint's cluster time lags the
 *     workflow's clock (the catalog's {@code mirror_status.replication_lag}); null before the
 *     first commit, when the checkpoint is only a starting point
 * @param totals figures over every committed batch
 * @param lastError the last batch or setup failure, in one line (never a credential)
 * @param lastErrorAtMillis when it happened
 * @param failedAttempts consecutive failed attempts since the last success
 * @param config the mirror with the settings in effect
 * @param pendingEdits accepted edits that apply from the next batch
 * @param recentRejectedEdits the last signals (edit, pause, terminate) that were rejected, and the added
 *     collections the source or destination refused, oldest first
 * @param run how many times the workflow continued as new
 * @param batchesThisRun batches committed since the last continue-as-new
 * @param oplogHeadroomSeconds how much further the committed checkpoint may fall behind before
 *     the source's oplog no longer holds it; null when the source does not report its oplog
 * @param oplogWarning set, well before history would be lost, when the checkpoint is in the
 *     oldest quarter of the oplog window; null otherwise
 * @param snapshots per collection, the snapshot's progress (partitions done, documents
 *     copied); empty when the mirror was created without a snapshot
 * @param visibleLagMillis how far the newest change visible in the destination (as of the last
 *     committed batch) lags the workflow's clock: its source commit time to now. Unlike {@code
 *     checkpointAgeSeconds} (how much a restart would replay), this is what readers of the
 *     destination see; it also grows while the source is quiet. Null before a batch delivered
 *     changes (in workers before the freshness was carried over continue-as-new: in this
 *     workflow run)
 * @param lastBatchFreshness how fresh the last committed batch's changes were when they became
 *     visible (p50, p99, max); null before a batch delivered changes (in workers before it was
 *     carried over continue-as-new: in this workflow run)
 * @param startedFrom where the mirror's stream started when it was set up: the start point its
 *     creator chose ({@code --start-at}, {@code --start-after}) or the source's time then; null
 *     before setup, for a mirror set up over a checkpoint the catalog held, and in workers from
 *     before start points
 * @param fieldRuleRewrite the rewrite of the rows written before field rules were added, and where
 *     it is; null when none runs
 * @param copySecondsLeft how long the running copy (first snapshot, resync, added collection) is
 *     expected to take still, at the rate it has copied so far ({@link CopyTimeLeft}): compare it
 *     with {@code oplogHeadroomSeconds}. 0 when no copy is under way; null until a partition of the
 *     copy has finished (and from workers before it)
 */
public record MirrorStatus(
    String mirror,
    MirrorPhase state,
    String pausedReason,
    long committedBatchId,
    long batchInFlight,
    Checkpoint committedCheckpoint,
    Long committedAtMillis,
    Long checkpointAgeSeconds,
    MirrorTotals totals,
    String lastError,
    Long lastErrorAtMillis,
    int failedAttempts,
    MirrorConfig config,
    List<EditRequest> pendingEdits,
    List<RejectedEdit> recentRejectedEdits,
    int run,
    long batchesThisRun,
    Long oplogHeadroomSeconds,
    String oplogWarning,
    List<SnapshotProgress> snapshots,
    Long visibleLagMillis,
    BatchFreshness lastBatchFreshness,
    Checkpoint startedFrom,
    String fieldRuleRewrite,
    Long copySecondsLeft) {

  /**
   * Whether every copy, with the sweep after it, is over: the batches stream beside a copy, so
   * the checkpoint alone can pass the last change with partitions still to copy. (Not named like a
   * getter: the status's JSON holds its components only.)
   */
  public boolean copiesOver() {
    return state != MirrorPhase.SNAPSHOTTING && snapshots.stream().allMatch(SnapshotProgress::done);
  }
}
