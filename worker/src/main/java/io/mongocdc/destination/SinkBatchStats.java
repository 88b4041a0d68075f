package io.mongocdc.destination;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one committed transaction of a {@link PostgresRecordSink} applied.
 *
 * @param tables per destination table, in first-written order
 */
public record SinkBatchStats(List<TableStats> tables) {

  public static final SinkBatchStats EMPTY = new SinkBatchStats(List.of());

  public SinkBatchStats {
    tables = List.copyOf(tables);
  }

  public long records() {
    return tables.stream().mapToLong(TableStats::records).sum();
  }

  public long historyRows() {
    return tables.stream().mapToLong(TableStats::historyRows).sum();
  }

  /** Drifted typed column values, by table and column; tables without drift left out. */
  public Map<String, Map<String, Long>> drift() {
    Map<String, Map<String, Long>> drift = new TreeMap<>();
    for (TableStats table : tables) {
      if (!table.drift().isEmpty()) {
        drift.put(table.table().name(), table.drift());
      }
    }
    return drift;
  }

  public long rowsChanged() {
    return tables.stream().mapToLong(TableStats::rowsChanged).sum();
  }

  /**
   * Counts for one table.
   *
   * @param inserts insert records written
   * @param updates update records written (with or without a post-image)
   * @param replaces replace records written
   * @param deletes delete records written
   * @param updatesWithoutDocument update records that had no post-image and so changed nothing
   * @param sanitizedDocuments documents jsonb could not hold as they were (see JsonbSanitizer)
   * @param bytes source bytes of the records
   * @param rowsChanged rows inserted, updated or removed by the merge; records superseded in the
   *     same batch, or older than the row, change nothing
   * @param historyRows rows appended to the table's history table (0 without history); a replayed
   *     event is not appended again
   * @param drift rows written whose typed column did not convert ({@code _drift}), by column; empty
   *     without typed columns or drift
   */
  public record TableStats(
      DestinationTable table,
      long inserts,
      long updates,
      long replaces,
      long deletes,
      long updatesWithoutDocument,
      long sanitizedDocuments,
      long bytes,
      long rowsChanged,
      long historyRows,
      Map<String, Long> drift) {

    public TableStats {
      drift = drift == null ? Map.of() : Map.copyOf(drift);
    }

    public long records() {
      return inserts + updates + replaces + deletes;
    }
  }
}
