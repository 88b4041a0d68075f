package io.mongocdc.pipeline;

import java.time.Duration;

/**
 * Where a pull spent its time. Decode time is summed over the workers, so it can exceed the
 * total; the waits say which stage held the others up.
 *
 * @param total wall time of the call
 * @param read time the reader spent waiting on the stream
 * @param readerBackPressure time the reader waited for an in-flight slot (downstream was full)
 * @param decode CPU time of the decode pool, summed over workers
 * @param senderWaitingForDecode time the sender waited for the next chunk's decode
 * @param sinkWrite time in {@link RecordSink#write}
 * @param sinkCommit time in {@link RecordSink#commit}
 */
public record StageTimings(
    Duration total,
    Duration read,
    Duration readerBackPressure,
    Duration decode,
    Duration senderWaitingForDecode,
    Duration sinkWrite,
    Duration sinkCommit) {}
