package io.mongocdc.workflows.model;

import java.util.Map;

/**
 * Figures summed over every committed batch of a mirror (across continue-as-new).
 *
 * @param recordsQuarantined records set aside in the catalog's {@code quarantined_events} under
 *     {@code poisonEventPolicy} QUARANTINE (0 in histories of workers before it existed)
 * @param historyRowsAppended rows appended to history tables (0 before change history existed)
 * @param historyRowsPruned history rows removed by retention (0 before change history existed)
 * @param columnDrift typed column values that did not convert, by table and column, in the rows
 *     batches and snapshot partitions wrote (empty before typed columns existed)
 * @param eventsSkipped events passed over, per operation type (empty before {@code
 *     unknownEventPolicy} existed)
 */
public record MirrorTotals(
    long batches, long eventsRead, long recordsDelivered, long recordsExcluded, long bytesRead,
    long recordsQuarantined, long historyRowsAppended, long historyRowsPruned,
    Map<String, Map<String, Long>> columnDrift, Map<String, Long> eventsSkipped) {

  public static final MirrorTotals ZERO = new MirrorTotals(0, 0, 0, 0, 0, 0, 0, 0, null, null);

  public MirrorTotals {
    columnDrift = ColumnDrift.copyOf(columnDrift);
    eventsSkipped = SkippedEvents.copyOf(eventsSkipped);
  }

  /** These totals with a snapshot partition's drift added. */
  public MirrorTotals plusDrift(Map<String, Map<String, Long>> drift) {
    return new MirrorTotals(batches, eventsRead, recordsDelivered, recordsExcluded, bytesRead, recordsQuarantined,
        historyRowsAppended, historyRowsPruned, ColumnDrift.plus(columnDrift, drift), eventsSkipped);
  }

  public MirrorTotals plus(BatchFigures batch) {
    return new MirrorTotals(
        batches + 1,
        eventsRead + batch.eventsRead(),
        recordsDelivered + batch.recordsDelivered(),
        recordsExcluded + batch.recordsExcluded(),
        bytesRead + batch.bytesRead(),
        recordsQuarantined + batch.recordsQuarantined(),
        historyRowsAppended + batch.historyRowsAppended(),
        historyRowsPruned + batch.historyRowsPruned(),
        ColumnDrift.plus(columnDrift, batch.columnDrift()),
        SkippedEvents.plus(eventsSkipped, batch.eventsSkipped()));
  }
}
