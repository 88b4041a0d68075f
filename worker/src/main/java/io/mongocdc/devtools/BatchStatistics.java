package io.mongocdc.devtools;

import io.mongocdc.catalog.MirrorProgress;
import java.time.Instant;

/**
 * A mirror's batch figures, from the catalog's batch history.
 *
 * @param phaseStart the start of the first batch that delivered records, null if none did
 * @param phaseEnd the end of the last batch that delivered records, null if none did
 */
record BatchStatistics(long batches, long lastBatchId, long records, Instant phaseStart, Instant phaseEnd,
    long p50Millis, long p99Millis) {

  static BatchStatistics of(MirrorProgress catalog, String mirror) {
    MirrorProgress.BatchTotals totals = catalog.batchTotals(mirror);
    return new BatchStatistics(totals.batches(), totals.lastBatchId(), totals.records(), totals.firstDeliveringStart(),
        totals.lastDeliveringEnd(), Math.round(totals.p50Seconds() * 1000), Math.round(totals.p99Seconds() * 1000));
  }

  /** Seconds from the first batch that delivered records starting to the last one ending; 0 if none. */
  double phaseSeconds() {
    return phaseStart == null || phaseEnd == null ? 0 : (phaseEnd.toEpochMilli() - phaseStart.toEpochMilli()) / 1000.0;
  }
}
