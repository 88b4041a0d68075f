package io.mongocdc.catalog;

import io.mongocdc.source.ResumeToken;
import io.mongocdc.workflows.model.Stage;
import io.mongocdc.workflows.model.BatchFreshness;
import java.time.Instant;
import java.util.List;
import java.util.Map;
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
 * @param stageMillis where the batch spent its time, milliseconds by {@link Stage#key}; null if unknown
 * @param endReason why the batch ended (the pipeline's end reason), null if unknown
 * @param error the error that failed the batch, null if it succeeded
 * @param attempts activity attempts the batch took; null if unknown
 * @param tables per destination table counts, added to the mirror's table counters once
 * @param quarantined events set aside in {@code quarantined_events}; null if unknown
 * @param historyRows rows appended to the mirror's history tables; null if unknown
 * @param historyPruned history rows removed by retention after the batch; null if unknown
 * @param columnDrift typed column values that did not convert, by table and column, added to the
 *     mirror's {@code column_drift} counters once; empty when none
 * @param freshness how fresh the batch's changes were when they became visible; null if unknown
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
    Map<String, Long> stageMillis,
    String endReason,
    String error,
    Integer attempts,
    List<TableCounts> tables,
    Long quarantined,
    Long historyRows,
    Long historyPruned,
    Map<String, Map<String, Long>> columnDrift,
    BatchFreshness freshness) {

  /** A report without freshness figures (unknown). */
  public BatchReport(String mirror, long batchId, Instant startedAt, Instant endedAt, long records, long bytes,
      OperationCounts operations, ResumeToken firstPosition, ResumeToken lastPosition, Map<String, Long> stageMillis,
      String endReason, String error, Integer attempts, List<TableCounts> tables, Long quarantined, Long historyRows,
      Long historyPruned, Map<String, Map<String, Long>> columnDrift) {
    this(mirror, batchId, startedAt, endedAt, records, bytes, operations, firstPosition, lastPosition, stageMillis,
        endReason, error, attempts, tables, quarantined, historyRows, historyPruned, columnDrift, null);
  }

  /** A report without typed column drift. */
  public BatchReport(String mirror, long batchId, Instant startedAt, Instant endedAt, long records, long bytes,
      OperationCounts operations, ResumeToken firstPosition, ResumeToken lastPosition, Map<String, Long> stageMillis,
      String endReason, String error, Integer attempts, List<TableCounts> tables, Long quarantined, Long historyRows,
      Long historyPruned) {
    this(mirror, batchId, startedAt, endedAt, records, bytes, operations, firstPosition, lastPosition, stageMillis,
        endReason, error, attempts, tables, quarantined, historyRows, historyPruned, null);
  }

  /** A report without change history figures (unknown). */
  public BatchReport(String mirror, long batchId, Instant startedAt, Instant endedAt, long records, long bytes,
      OperationCounts operations, ResumeToken firstPosition, ResumeToken lastPosition, Map<String, Long> stageMillis,
      String endReason, String error, Integer attempts, List<TableCounts> tables, Long quarantined) {
    this(mirror, batchId, startedAt, endedAt, records, bytes, operations, firstPosition, lastPosition, stageMillis,
        endReason, error, attempts, tables, quarantined, null, null);
  }

  public BatchReport {
    Objects.requireNonNull(mirror, "mirror");
    Objects.requireNonNull(startedAt, "startedAt");
    tables = tables == null ? List.of() : List.copyOf(tables);
    columnDrift = columnDrift == null ? Map.of() : columnDrift;
  }

  /** The milliseconds the batch spent in {@code stage}: null if its timings are unknown, 0 if it did not report it. */
  public Long millisIn(Stage stage) {
    return stageMillis == null ? null : stageMillis.getOrDefault(stage.key(), 0L);
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
