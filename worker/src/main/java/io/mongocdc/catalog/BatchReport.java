package io.mongocdc.catalog;

import io.mongocdc.pipeline.StageTimings;
import io.mongocdc.source.ResumeToken;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One batch of a mirror, as recorded in the catalog's batch history.
 *
 * @param endedAt null while the batch runs
 * @param firstPosition token of the first record, null for an empty batch
 * @param lastPosition token of the last record, null for an empty batch
 * @param timings where the batch spent its time; null if unknown
 * @param endReason why the batch ended (the pipeline's end reason), null if unknown
 * @param error the error that failed the batch, null if it succeeded
 * @param tables per destination table counts, added to the mirror's table counters once
 */
public record BatchReport(
    String mirror,
    long batchId,
    Instant startedAt,
    Instant endedAt,
    OperationCounts counts,
    ResumeToken firstPosition,
    ResumeToken lastPosition,
    StageTimings timings,
    String endReason,
    String error,
    List<TableCounts> tables) {

  public BatchReport {
    Objects.requireNonNull(mirror, "mirror");
    Objects.requireNonNull(startedAt, "startedAt");
    Objects.requireNonNull(counts, "counts");
    tables = tables == null ? List.of() : List.copyOf(tables);
  }

  /** Records, bytes and per-operation counts. */
  public record OperationCounts(
      long records, long bytes, long inserts, long updates, long replaces, long deletes) {

    public static final OperationCounts NONE = new OperationCounts(0, 0, 0, 0, 0, 0);
  }

  /** Counts for one destination table within a batch. */
  public record TableCounts(String destinationTable, String sourceNamespace, OperationCounts counts) {}
}
