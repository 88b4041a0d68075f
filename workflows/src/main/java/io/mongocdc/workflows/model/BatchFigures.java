package io.mongocdc.workflows.model;

import java.util.Map;

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
 */
public record BatchFigures(
    long eventsRead,
    long recordsDelivered,
    long recordsExcluded,
    long bytesRead,
    Map<String, Long> recordsByTable,
    long durationMillis,
    String endReason,
    int attempts) {

  public BatchFigures {
    recordsByTable = recordsByTable == null ? Map.of() : Map.copyOf(recordsByTable);
  }
}
