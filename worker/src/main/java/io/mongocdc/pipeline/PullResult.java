package io.mongocdc.pipeline;

import io.mongocdc.decode.ControlEvent;
import io.mongocdc.decode.Operation;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a successful pull delivered.
 *
 * @param checkpoint the last delivered position: the token of the last committed event or
 *     post-batch token, or the starting position if nothing moved it. Never null.
 * @param endReason why the call ended
 * @param eventsRead change events read from the stream (skipped replays not counted)
 * @param recordsDelivered records durably committed by the sink
 * @param bytesRead raw bytes of the events read
 * @param tables what was delivered per destination table: records and bytes by operation
 * @param firstPosition the position of the first delivered record, or null if none was
 * @param recordsQuarantined poison events set aside up to the checkpoint
 * @param eventsSkipped events passed over up to the checkpoint, per operation type (unknownEventPolicy SKIP or an
 *     excluded type the decoder met)
 * @param controlEvents control events met, in order (ignored ones and the one that stopped)
 * @param stoppedAt the control event that ended the call under PAUSE, or null
 * @param eventsSkippedAfterReopen events at or before the last read token that a reopened
 *     stream replayed and the reader skipped
 * @param streamReopens how often the stream was reopened after "resume token not found"
 * @param timings where the time went
 * @param freshness how fresh the delivered records were when they became visible; null when none was
 */
public record PullResult(
    StreamPosition checkpoint,
    EndReason endReason,
    long eventsRead,
    long recordsDelivered,
    long bytesRead,
    Map<String, TableTally> tables,
    ResumeToken firstPosition,
    long recordsQuarantined,
    Map<String, Long> eventsSkipped,
    List<ControlEvent> controlEvents,
    ControlEvent stoppedAt,
    long eventsSkippedAfterReopen,
    int streamReopens,
    StageTimings timings,
    Freshness freshness) {

  /** Delivered records per destination table and operation. */
  public Map<String, Map<Operation, Long>> recordsByTable() {
    Map<String, Map<Operation, Long>> byTable = new LinkedHashMap<>();
    tables.forEach((table, tally) -> byTable.put(table, tally.records()));
    return byTable;
  }
}
