package io.mongocdc.pipeline;

import io.mongocdc.decode.ControlEvent;
import io.mongocdc.decode.Operation;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.BatchFigures;
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
 * @param figures the batch figures the pipeline counts (poison events set aside, events passed over, ...), up to
 *     the checkpoint
 * @param controlEvents control events met, in order (ignored ones and the one that stopped)
 * @param stoppedAt the control event that ended the call under PAUSE, or null
 * @param replaysSkipped events at or before the last read token that a reopened
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
    BatchFigures figures,
    List<ControlEvent> controlEvents,
    ControlEvent stoppedAt,
    long replaysSkipped,
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
