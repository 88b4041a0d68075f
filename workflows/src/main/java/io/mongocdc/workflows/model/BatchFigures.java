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
 * @param endReason why the batch ended (BATCH_SIZE, IDLE_TIMEOUT, MAX_DURATION, CONTROL_EVENT, TURN_OVER)
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
 * @param eventsSkipped events passed over, per operation type ({@code unknownEventPolicy} SKIP, or
 *     an excluded type the decoder met), over all attempts, sorted by type; empty when none, and in
 *     histories of workers before it existed
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
    BatchFreshness freshness,
    Map<String, Long> eventsSkipped) {

  public BatchFigures {
    eventsSkipped = SkippedEvents.copyOf(eventsSkipped);
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

  /** A builder with nothing set: no events, no records, no tables, unknown stages and freshness. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds the figures of a batch, one named field at a time. */
  public static final class Builder {
    private long eventsRead;
    private long recordsDelivered;
    private long recordsExcluded;
    private long bytesRead;
    private Map<String, Long> recordsByTable;
    private long durationMillis;
    private String endReason;
    private int attempts;
    private Map<String, Long> stageMillis;
    private Map<String, TableFigures> tables;
    private String firstPosition;
    private long recordsQuarantined;
    private long historyRowsAppended;
    private long historyRowsPruned;
    private Map<String, Map<String, Long>> columnDrift;
    private BatchFreshness freshness;
    private Map<String, Long> eventsSkipped;

    private Builder() {}

    public Builder eventsRead(long value) {
      eventsRead = value;
      return this;
    }

    public Builder recordsDelivered(long value) {
      recordsDelivered = value;
      return this;
    }

    public Builder recordsExcluded(long value) {
      recordsExcluded = value;
      return this;
    }

    public Builder bytesRead(long value) {
      bytesRead = value;
      return this;
    }

    public Builder recordsByTable(Map<String, Long> value) {
      recordsByTable = value;
      return this;
    }

    public Builder durationMillis(long value) {
      durationMillis = value;
      return this;
    }

    public Builder endReason(String value) {
      endReason = value;
      return this;
    }

    public Builder attempts(int value) {
      attempts = value;
      return this;
    }

    public Builder stageMillis(Map<String, Long> value) {
      stageMillis = value;
      return this;
    }

    public Builder tables(Map<String, TableFigures> value) {
      tables = value;
      return this;
    }

    public Builder firstPosition(String value) {
      firstPosition = value;
      return this;
    }

    public Builder recordsQuarantined(long value) {
      recordsQuarantined = value;
      return this;
    }

    public Builder historyRowsAppended(long value) {
      historyRowsAppended = value;
      return this;
    }

    public Builder historyRowsPruned(long value) {
      historyRowsPruned = value;
      return this;
    }

    public Builder columnDrift(Map<String, Map<String, Long>> value) {
      columnDrift = value;
      return this;
    }

    public Builder freshness(BatchFreshness value) {
      freshness = value;
      return this;
    }

    public Builder eventsSkipped(Map<String, Long> value) {
      eventsSkipped = value;
      return this;
    }

    public BatchFigures build() {
      return new BatchFigures(eventsRead, recordsDelivered, recordsExcluded, bytesRead, recordsByTable,
          durationMillis, endReason, attempts, stageMillis, tables, firstPosition, recordsQuarantined,
          historyRowsAppended, historyRowsPruned, columnDrift, freshness, eventsSkipped);
    }
  }
}
