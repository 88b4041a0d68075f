package io.mongocdc.activities;

import io.mongocdc.pipeline.DecodeThreads;
import io.mongocdc.pipeline.DecodedBytesBudget;
import io.mongocdc.pipeline.PullSettings;
import java.time.Duration;

/**
 * The worker's own PullRecords knobs, which operators do not edit per mirror.
 *
 * @param progressInterval how often progress is heartbeated; well inside the 30 s heartbeat
 *     timeout
 * @param commitIntervalRecords the sink commits every this many records, so the heartbeated
 *     checkpoint moves within a long batch and a retry replays little; large enough that each
 *     commit's merges are large (see {@code PostgresSinkOptions.flushRecords})
 * @param commitIntervalBytes the sink also commits once this many source bytes were written
 *     since its last commit, so batches of large documents commit as often
 * @param shutdownTimeout how long a failed or cancelled pull waits for its threads
 * @param maxDecodedBytesInFlight decoded bytes all pulls of the worker may hold at once (decoded
 *     chunks waiting for their sender or being written); one budget for the worker, because its
 *     mirrors share one heap. Default: a quarter of the maximum heap, at least 64 MiB ({@link
 *     DecodedBytesBudget#defaultMaxBytes()})
 * @param decodeThreads chunks all pulls of the worker decode at once, whichever mirror they
 *     belong to; a mirror's {@code decodeWorkers} is its own cap within it. Default: the
 *     processors of the JVM ({@link DecodeThreads})
 * @param connectionTurn how long a batch with a backlog runs before it ends to let batches that
 *     wait for its destination connections have theirs (more mirrors than the worker's pool serves
 *     at once take turns); one that has caught up with its stream ends sooner ({@link
 *     ConnectionTurn}). Default 10 s: a few turns stay well inside a batch's timeout, and starting
 *     a batch costs a few tens of milliseconds
 */
public record PullTuning(
    Duration progressInterval,
    int commitIntervalRecords,
    long commitIntervalBytes,
    Duration shutdownTimeout,
    long maxDecodedBytesInFlight,
    int decodeThreads,
    Duration connectionTurn) {

  public PullTuning {
    // The pipeline's knobs are checked here, when the worker is configured, not at its first batch.
    knobs(progressInterval, commitIntervalRecords, commitIntervalBytes, shutdownTimeout);
    if (maxDecodedBytesInFlight <= 0) {
      throw new IllegalArgumentException(
          "maxDecodedBytesInFlight must be at least 1 byte, got " + maxDecodedBytesInFlight);
    }
    if (decodeThreads < 1) {
      throw new IllegalArgumentException("decodeThreads must be at least 1, got " + decodeThreads);
    }
    if (connectionTurn.isNegative() || connectionTurn.isZero()) {
      throw new IllegalArgumentException("connectionTurn must be positive, got " + connectionTurn);
    }
  }

  public static PullTuning defaults() {
    return new PullTuning(Duration.ofSeconds(2), 50_000, 64L << 20, Duration.ofSeconds(30),
        DecodedBytesBudget.defaultMaxBytes(), DecodeThreads.defaultMax(), Duration.ofSeconds(10));
  }

  public PullTuning withProgressInterval(Duration value) {
    return new PullTuning(value, commitIntervalRecords, commitIntervalBytes, shutdownTimeout, maxDecodedBytesInFlight,
        decodeThreads, connectionTurn);
  }

  /** These knobs with the sink committing every {@code records} records or {@code bytes} source bytes. */
  public PullTuning withCommitInterval(int records, long bytes) {
    return new PullTuning(progressInterval, records, bytes, shutdownTimeout, maxDecodedBytesInFlight, decodeThreads,
        connectionTurn);
  }

  public PullTuning withShutdownTimeout(Duration value) {
    return new PullTuning(progressInterval, commitIntervalRecords, commitIntervalBytes, value, maxDecodedBytesInFlight,
        decodeThreads, connectionTurn);
  }

  public PullTuning withMaxDecodedBytesInFlight(long value) {
    return new PullTuning(progressInterval, commitIntervalRecords, commitIntervalBytes, shutdownTimeout, value,
        decodeThreads, connectionTurn);
  }

  public PullTuning withDecodeThreads(int value) {
    return new PullTuning(progressInterval, commitIntervalRecords, commitIntervalBytes, shutdownTimeout,
        maxDecodedBytesInFlight, value, connectionTurn);
  }

  public PullTuning withConnectionTurn(Duration value) {
    return new PullTuning(progressInterval, commitIntervalRecords, commitIntervalBytes, shutdownTimeout,
        maxDecodedBytesInFlight, decodeThreads, value);
  }

  /** The pipeline's worker knobs of one batch (what it reads is the mirror's settings). */
  public PullSettings pullSettings() {
    return knobs(progressInterval, commitIntervalRecords, commitIntervalBytes, shutdownTimeout);
  }

  /** @throws IllegalArgumentException naming the first knob that cannot work */
  private static PullSettings knobs(Duration progressInterval, int commitIntervalRecords, long commitIntervalBytes,
      Duration shutdownTimeout) {
    return PullSettings.builder()
        .progressInterval(progressInterval)
        .commitIntervalRecords(commitIntervalRecords)
        .commitIntervalBytes(commitIntervalBytes)
        .shutdownTimeout(shutdownTimeout)
        .build();
  }
}
