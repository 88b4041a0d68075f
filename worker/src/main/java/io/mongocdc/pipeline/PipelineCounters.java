package io.mongocdc.pipeline;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Counters and stage clocks of one pull, written by its stages and read by progress reports. */
final class PipelineCounters {
  final AtomicLong eventsRead = new AtomicLong();
  final AtomicLong bytesRead = new AtomicLong();
  final AtomicLong replaysSkipped = new AtomicLong();
  final LongAdder recordsDecoded = new LongAdder();
  final AtomicLong recordsStaged = new AtomicLong();
  final AtomicLong recordsDelivered = new AtomicLong();

  final AtomicLong readNanos = new AtomicLong();
  final AtomicLong readerBackPressureNanos = new AtomicLong();
  final LongAdder decodeNanos = new LongAdder();
  final AtomicLong senderWaitNanos = new AtomicLong();
  final AtomicLong sinkWriteNanos = new AtomicLong();
  final AtomicLong sinkCommitNanos = new AtomicLong();
  final AtomicLong applyBackPressureNanos = new AtomicLong();
  final AtomicLong laneCommitNanos = new AtomicLong();
}
