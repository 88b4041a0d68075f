package io.mongocdc.pipeline;

import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.BatchFigures;
import java.time.Duration;
import java.util.Map;

/**
 * A snapshot of a pull under way.
 *
 * @param deliveredCheckpoint the position up to which records are durably committed; a retry
 *     may resume from here without losing anything
 * @param eventsRead change events read from the stream
 * @param recordsDecoded records the decode pool produced
 * @param recordsStaged records written to the sink, committed or not
 * @param recordsDelivered records durably committed
 * @param chunksInFlight chunks read and not yet written to the sink: the decode queue's depth
 * @param elapsed time since the pull started
 * @param timings where the pull has spent its time so far
 * @param deliveredByTable what is durably committed per destination table
 * @param firstDelivered the position of the first committed record, or null before one
 * @param figures the batch figures the pipeline counts (poison events set aside, events passed over, ...), up to
 *     the delivered checkpoint
 * @param freshness how fresh the committed records were when they became visible; null before one
 */
public record PullProgress(
    StreamPosition deliveredCheckpoint,
    long eventsRead,
    long recordsDecoded,
    long recordsStaged,
    long recordsDelivered,
    int chunksInFlight,
    Duration elapsed,
    StageTimings timings,
    Map<String, TableTally> deliveredByTable,
    ResumeToken firstDelivered,
    BatchFigures figures,
    Freshness freshness) {}
