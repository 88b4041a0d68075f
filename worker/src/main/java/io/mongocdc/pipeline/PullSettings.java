package io.mongocdc.pipeline;

import java.time.Duration;

/**
 * The worker's knobs of a PullRecords call: how it holds memory, commits, reports and stops.
 * Values that cannot work are rejected when the settings are built, with a message naming the
 * knob, the value and what is allowed; they never turn into a hang or a crash later.
 *
 * <p>What a batch reads and how far it goes are the mirror's own settings, which a pull takes as
 * its {@link io.mongocdc.workflows.model.MirrorSettings} and checks by their declarations ({@link
 * PullRecords#MIRROR_SETTINGS}).
 *
 * @param maxInFlightChunks chunks read but not yet written to the sink, which bounds memory
 *     together with {@code maxChunkBytes}. A pull never uses fewer than the threads it decodes
 *     on, so every one can be busy; null: twice those threads.
 * @param maxChunkBytes a chunk is cut early once its raw events reach this many bytes.
 *     Default 16 MiB (one maximum-size change event).
 * @param commitIntervalRecords commit the sink every this many records within a call (0: only
 *     at the end of the call). Default 0.
 * @param commitIntervalBytes commit the sink once the records written since the last commit
 *     hold this many source bytes (0: no byte bound), so large documents commit as often as
 *     many small ones. Default 0.
 * @param progressInterval how often progress is reported (it feeds heartbeats). Default 2 s.
 * @param shutdownTimeout how long a failed or cancelled call waits for its threads to stop.
 *     Default 30 s.
 * @param maxStreamReopens how often one call may reopen the stream after "resume token not
 *     found" before the history counts as lost. Default 3.
 */
public record PullSettings(
    Integer maxInFlightChunks,
    int maxChunkBytes,
    int commitIntervalRecords,
    long commitIntervalBytes,
    Duration progressInterval,
    Duration shutdownTimeout,
    int maxStreamReopens) {

  public static final int DEFAULT_MAX_CHUNK_BYTES = 16 * 1024 * 1024;
  public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofSeconds(2);
  public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
  public static final int DEFAULT_MAX_STREAM_REOPENS = 3;

  public PullSettings {
    if (maxInFlightChunks != null) {
      requireAtLeast("maxInFlightChunks", maxInFlightChunks, 1);
    }
    requireAtLeast("maxChunkBytes", maxChunkBytes, 1);
    requireAtLeast("commitIntervalRecords", commitIntervalRecords, 0);
    requireAtLeast("commitIntervalBytes", commitIntervalBytes, 0);
    requirePositive("progressInterval", progressInterval);
    requirePositive("shutdownTimeout", shutdownTimeout);
    requireAtLeast("maxStreamReopens", maxStreamReopens, 0);
  }

  public static PullSettings defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder builder = new Builder()
        .maxChunkBytes(maxChunkBytes)
        .commitIntervalRecords(commitIntervalRecords)
        .commitIntervalBytes(commitIntervalBytes)
        .progressInterval(progressInterval)
        .shutdownTimeout(shutdownTimeout)
        .maxStreamReopens(maxStreamReopens);
    builder.maxInFlightChunks = maxInFlightChunks;
    return builder;
  }

  private static void requireAtLeast(String name, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", got " + value);
    }
  }

  private static void requirePositive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(name + " must be a positive duration, got " + value);
    }
  }

  /** Builds settings; every knob starts at its default. */
  public static final class Builder {
    private Integer maxInFlightChunks;
    private int maxChunkBytes = DEFAULT_MAX_CHUNK_BYTES;
    private int commitIntervalRecords;
    private long commitIntervalBytes;
    private Duration progressInterval = DEFAULT_PROGRESS_INTERVAL;
    private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
    private int maxStreamReopens = DEFAULT_MAX_STREAM_REOPENS;

    private Builder() {}

    public Builder maxInFlightChunks(int value) {
      maxInFlightChunks = value;
      return this;
    }

    public Builder maxChunkBytes(int value) {
      maxChunkBytes = value;
      return this;
    }

    public Builder commitIntervalRecords(int value) {
      commitIntervalRecords = value;
      return this;
    }

    public Builder commitIntervalBytes(long value) {
      commitIntervalBytes = value;
      return this;
    }

    public Builder progressInterval(Duration value) {
      progressInterval = value;
      return this;
    }

    public Builder shutdownTimeout(Duration value) {
      shutdownTimeout = value;
      return this;
    }

    public Builder maxStreamReopens(int value) {
      maxStreamReopens = value;
      return this;
    }

    /** @throws IllegalArgumentException naming the first knob that cannot work */
    public PullSettings build() {
      return new PullSettings(maxInFlightChunks, maxChunkBytes, commitIntervalRecords, commitIntervalBytes,
          progressInterval, shutdownTimeout, maxStreamReopens);
    }
  }
}
