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
 * @param records records delivered
 * @param bytes raw bytes of the events read
 * @param operations records delivered per operation; null if unknown
 * @param firstPosition token of the first delivered record; null for an empty batch or if unknown
 * @param lastPosition token of the checkpoint after the batch; null while it is an operation time
 * @param timings where the batch spent its time; null if unknown
 * @param endReason why the batch ended (the pipeline's end reason), null if unknown
 * @param error the error that failed the batch, null if it succeeded
 * @param attempts activity attempts the batch took; null if unknown
 * @param tables per destination table counts, added to the mirror's table counters once
 * @param quarantined events set aside in {@code quarantined_events}; null if unknown
 */
public record BatchReport(
    String mirror,
    long batchId,
    Instant startedAt,
    Instant endedAt,
    long records,
    long bytes,
    OperationCounts operations,
    ResumeToken firstPosition,
    ResumeToken lastPosition,
    StageTimings timings,
    String endReason,
    String error,
    Integer attempts,
    List<TableCounts> tables,
    Long quarantined) {

  public BatchReport {
    Objects.requireNonNull(mirror, "mirror");
    Objects.requireNonNull(startedAt, "startedAt");
    tables = tables == null ? List.of() : List.copyOf(tables);
  }

  /** Records per operation. */
  public record OperationCounts(long inserts, long updates, long replaces, long deletes) {

    public long records() {
      return inserts + updates + replaces + deletes;
    }
  }

  /**
   * Counts for one destination table within a batch.
   *
   * @param bytes raw change-event bytes of the table's records
   */
  public record TableCounts(String destinationTable, String sourceNamespace, long bytes, OperationCounts operations) {

    public TableCounts {
      Objects.requireNonNull(destinationTable, "destinationTable");
      Objects.requireNonNull(sourceNamespace, "sourceNamespace");
      Objects.requireNonNull(operations, "operations");
    }
  }
}
