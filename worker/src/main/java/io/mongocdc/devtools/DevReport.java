package io.mongocdc.devtools;

/**
 * What {@code mongo-cdc dev --report FILE} writes: the figures of the run and whether the
 * destination holds exactly the source's final state.
 *
 * @param source "generator" or "mongodb"
 * @param snapshotDocuments documents the initial snapshot copied
 * @param sourceEvents change events the source produced (the generator's count; for MongoDB,
 *     events read)
 * @param deliveredRecords records the destination committed, summed over batches
 * @param destinationRows live (not deleted) rows in the destination tables
 * @param destinationMatchesSource every row equals the generator's model of the final state,
 *     and no other live row exists (null when the source is MongoDB: no model to compare with)
 * @param mismatchedRows rows that differ, are missing or should not exist
 * @param batches batch rows in the catalog's history
 * @param lastBatchId the highest batch id in that history (equal to {@code batches} when every
 *     batch has exactly one row)
 * @param batchPhaseSeconds the batch phase: from the start of the first batch that delivered
 *     records to the end of the last one (empty batches waiting on the source at either end, and
 *     the snapshot before, are not in it)
 * @param eventsPerSecond source events over the batch phase
 * @param cpuCoresBusy this process's CPU time over the batch phase, divided by its wall time:
 *     the cores the worker kept busy on average (source, decode, apply, the in-process Temporal
 *     server; not the embedded PostgreSQL's own processes); null if it could not be measured
 * @param batchLatencyP50Ms median batch duration
 * @param batchLatencyP99Ms 99th percentile batch duration
 * @param quarantinedEvents events the mirror set aside in {@code quarantined_events} and not
 *     replayed; with the generator, every poison event it made ({@code --poison-events}) must be
 *     there for the destination to match
 * @param historyRows rows in the history tables of the collections given {@code --history}
 * @param historyRowsReported history rows the batches reported appending (the catalog's {@code
 *     batches.history_rows}): {@code historyRows} less the documents the snapshot copied into
 *     those collections' history (and any row retention pruned)
 * @param verify what {@code --verify} found (null without it)
 * @param freshnessP50Ms median freshness of the steady part of the run: per committed record, the
 *     commit that made it visible minus its source commit time ({@code wallTime}), over the
 *     records committed from {@link DevRun#STEADY_AFTER} (or a third of a shorter run) after the
 *     first batch that delivered records started until the run was stopped or its events ran out (the snapshot, the warm-up
 *     and the drain after a stop left out); to two significant digits; null if none
 * @param freshnessP99Ms its 99th percentile
 * @param freshnessMaxMs its largest
 */
public record DevReport(
    String source,
    long snapshotDocuments,
    long sourceEvents,
    long deliveredRecords,
    long destinationRows,
    Boolean destinationMatchesSource,
    long mismatchedRows,
    long batches,
    long lastBatchId,
    double batchPhaseSeconds,
    double eventsPerSecond,
    Double cpuCoresBusy,
    long batchLatencyP50Ms,
    long batchLatencyP99Ms,
    long quarantinedEvents,
    long historyRows,
    long historyRowsReported,
    Verify verify,
    Long freshnessP50Ms,
    Long freshnessP99Ms,
    Long freshnessMaxMs) {

  /**
   * The figures of {@code dev --verify} (with {@code --tamper N} and {@code --repair}).
   *
   * @param tampered destination rows altered behind the mirror's back before verifying
   * @param ranges {@code _id} ranges compared
   * @param documentsCompared source documents read and compared
   * @param mismatches {@code _id}s confirmed to differ
   * @param unsettled {@code _id}s verify could not judge in time (changing, or the mirror behind):
   *     not found to differ, and not among the mismatches
   * @param repaired of those, how many were repaired
   * @param seconds the verify run's duration
   * @param interrupted a stop cut the verify short: the figures above are then empty, and the
   *     destination was not compared in full
   */
  public record Verify(int tampered, int ranges, long documentsCompared, long mismatches, long unsettled,
      long repaired, double seconds, boolean interrupted) {}
}
