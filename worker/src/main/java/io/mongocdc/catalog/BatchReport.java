package io.mongocdc.catalog;

import io.mongocdc.source.ResumeToken;
import io.mongocdc.workflows.model.Stage;
import io.mongocdc.workflows.model.BatchFreshness;
import io.mongocdc.workflows.model.SkippedEvents;
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
 * @param eventsSkipped events the batch passed over, by operation type; empty when none
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
    BatchFreshness freshness,
    Map<String, Long> eventsSkipped) {

  public BatchReport {
    eventsSkipped = SkippedEvents.copyOf(eventsSkipped);
    Objects.requireNonNull(mirror, "mirror");
    Objects.requireNonNull(startedAt, "startedAt");
    tables = tables == null ? List.of() : List.copyOf(tables);
    columnDrift = columnDrift == null ? Map.of() : columnDrift;
  }

  /** The milliseconds the batch spent in {@code stage}: null if its timings are unknown, 0 if it did not report it. */
  public Long millisIn(Stage stage) {
    return stageMillis == null ? null : stageMillis.getOrDefault(stage.key(), 0L);
  }

  /** A builder with nothing set; {@code mirror} and {@code startedAt} are required, the rest may stay unknown. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a batch report, one named field at a time. */
  public static final class Builder {
    private String mirror;
    private long batchId;
    private Instant startedAt;
    private Instant endedAt;
    private long records;
    private long bytes;
    private OperationCounts operations;
    private ResumeToken firstPosition;
    private ResumeToken lastPosition;
    private Map<String, Long> stageMillis;
    private String endReason;
    private String error;
    private Integer attempts;
    private List<TableCounts> tables;
    private Long quarantined;
    private Long historyRows;
    private Long historyPruned;
    private Map<String, Map<String, Long>> columnDrift;
    private BatchFreshness freshness;
    private Map<String, Long> eventsSkipped;

    private Builder() {}

    public Builder mirror(String value) {
      mirror = value;
      return this;
    }

    public Builder batchId(long value) {
      batchId = value;
      return this;
    }

    public Builder startedAt(Instant value) {
      startedAt = value;
      return this;
    }

    public Builder endedAt(Instant value) {
      endedAt = value;
      return this;
    }

    public Builder records(long value) {
      records = value;
      return this;
    }

    public Builder bytes(long value) {
      bytes = value;
      return this;
    }

    public Builder operations(OperationCounts value) {
      operations = value;
      return this;
    }

    public Builder firstPosition(ResumeToken value) {
      firstPosition = value;
      return this;
    }

    public Builder lastPosition(ResumeToken value) {
      lastPosition = value;
      return this;
    }

    public Builder stageMillis(Map<String, Long> value) {
      stageMillis = value;
      return this;
    }

    public Builder endReason(String value) {
      endReason = value;
      return this;
    }

    public Builder error(String value) {
      error = value;
      return this;
    }

    public Builder attempts(Integer value) {
      attempts = value;
      return this;
    }

    public Builder tables(List<TableCounts> value) {
      tables = value;
      return this;
    }

    public Builder quarantined(Long value) {
      quarantined = value;
      return this;
    }

    public Builder historyRows(Long value) {
      historyRows = value;
      return this;
    }

    public Builder historyPruned(Long value) {
      historyPruned = value;
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

    public BatchReport build() {
      return new BatchReport(mirror, batchId, startedAt, endedAt, records, bytes, operations, firstPosition,
          lastPosition, stageMillis, endReason, error, attempts, tables, quarantined, historyRows, historyPruned,
          columnDrift, freshness, eventsSkipped);
    }
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
