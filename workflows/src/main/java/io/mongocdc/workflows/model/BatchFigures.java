package io.mongocdc.workflows.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one batch did, as recorded in the catalog's batch history and summed in status.
 *
 * @param eventsRead change events read from the stream
 * @param recordsDelivered records durably applied to the destination
 * @param recordsExcluded records skipped because their operation type is excluded
 * @param bytesRead raw bytes of the events read
 * @param recordsByTable delivered records per destination table
 * @param durationMillis wall time of the batch, over all attempts
 * @param endReason why the batch ended (BATCH_SIZE, IDLE_TIMEOUT, MAX_DURATION, CONTROL_EVENT)
 * @param attempts activity attempts the batch took
 * @param stageMillis where the successful attempt spent its time, in milliseconds by stage
 *     (read, readerBackPressure, decode, senderWaitingForDecode, sinkWrite, sinkCommit,
 *     applyBackPressure, laneCommit), in that order; null when unknown (histories of workers
 *     before it existed)
 * @param tables what each destination table got, by operation, over all attempts, sorted by
 *     table; null when unknown (histories of workers before it existed)
 * @param firstPosition the resume token (hex) of the batch's first delivered record; null for a
 *     batch that delivered nothing, or when unknown
 * @param recordsQuarantined records set aside in the catalog's {@code quarantined_events} instead
 *     of applied ({@code poisonEventPolicy} QUARANTINE), over all attempts; 0 in histories of
 *     workers before it existed
 * @param historyRowsAppended rows appended to history tables ({@code <table>_history}), over all
 *     attempts; a replayed event is not appended again (0 without history, and in histories of
 *     workers before it existed)
 * @param historyRowsPruned history rows older than {@code historyRetentionDays} removed after the
 *     batch (0 without retention)
 * @param columnDrift typed column values that did not convert ({@code _drift}) in the rows the
 *     batch wrote, by table and column; empty without typed columns, and in histories of workers
 *     before them
 * @param freshness how fresh the batch's changes were when they became visible; null when it
 *     delivered nothing, and in histories of workers before it existed
 */
public record BatchFigures(
    long eventsRead,
    long recordsDelivered,
    long recordsExcluded,
    long bytesRead,
    Map<String, Long> recordsByTable,
    long durationMillis,
    String endReason,
    int attempts,
    Map<String, Long> stageMillis,
    Map<String, TableFigures> tables,
    String firstPosition,
    long recordsQuarantined,
    long historyRowsAppended,
    long historyRowsPruned,
    Map<String, Map<String, Long>> columnDrift,
    BatchFreshness freshness) {

  /** Figures without freshness. */
  public BatchFigures(long eventsRead, long recordsDelivered, long recordsExcluded, long bytesRead,
      Map<String, Long> recordsByTable, long durationMillis, String endReason, int attempts,
      Map<String, Long> stageMillis, Map<String, TableFigures> tables, String firstPosition, long recordsQuarantined,
      long historyRowsAppended, long historyRowsPruned, Map<String, Map<String, Long>> columnDrift) {
    this(eventsRead, recordsDelivered, recordsExcluded, bytesRead, recordsByTable, durationMillis, endReason, attempts,
        stageMillis, tables, firstPosition, recordsQuarantined, historyRowsAppended, historyRowsPruned, columnDrift,
        null);
  }

  /** Figures without typed column drift. */
  public BatchFigures(long eventsRead, long recordsDelivered, long recordsExcluded, long bytesRead,
      Map<String, Long> recordsByTable, long durationMillis, String endReason, int attempts,
      Map<String, Long> stageMillis, Map<String, TableFigures> tables, String firstPosition, long recordsQuarantined,
      long historyRowsAppended, long historyRowsPruned) {
    this(eventsRead, recordsDelivered, recordsExcluded, bytesRead, recordsByTable, durationMillis, endReason, attempts,
        stageMillis, tables, firstPosition, recordsQuarantined, historyRowsAppended, historyRowsPruned, null);
  }

  /** Figures without change history. */
  public BatchFigures(long eventsRead, long recordsDelivered, long recordsExcluded, long bytesRead,
      Map<String, Long> recordsByTable, long durationMillis, String endReason, int attempts,
      Map<String, Long> stageMillis, Map<String, TableFigures> tables, String firstPosition, long recordsQuarantined) {
    this(eventsRead, recordsDelivered, recordsExcluded, bytesRead, recordsByTable, durationMillis, endReason, attempts,
        stageMillis, tables, firstPosition, recordsQuarantined, 0, 0);
  }

  public BatchFigures {
    recordsByTable = recordsByTable == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(recordsByTable));
    tables = tables == null ? null : Collections.unmodifiableMap(new TreeMap<>(tables));
    // Kept in the order given: it is shown to operators as a sequence of stages.
    stageMillis = stageMillis == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(stageMillis));
    columnDrift = ColumnDrift.copyOf(columnDrift);
  }

  /** The batch's counts summed over its tables, or null when the tables are unknown. */
  public TableFigures totalsOverTables() {
    if (tables == null) {
      return null;
    }
    TableFigures sum = new TableFigures(null, 0, 0, 0, 0, 0);
    for (TableFigures table : tables.values()) {
      sum = sum.plus(table);
    }
    return sum;
  }
}
