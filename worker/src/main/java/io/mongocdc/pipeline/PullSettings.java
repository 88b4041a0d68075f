package io.mongocdc.pipeline;

import io.mongocdc.workflows.model.ControlEventPolicy;
import io.mongocdc.workflows.model.MirrorSettings;
import java.time.Duration;
import java.util.Objects;

/**
 * Every setting of a PullRecords call. Values that cannot work are rejected when the settings
 * are built, with a message naming the setting, the value and what is allowed; they never turn
 * into a hang or a crash later.
 *
 * <p>Two kinds: the mirror's own settings ({@code decodeWorkers}, {@code chunkSize}, {@code
 * maxBatchSize}, {@code idleTimeout}, {@code maxBatchDuration}, {@code controlEventPolicy}),
 * which {@link Builder#mirror} takes from its {@link MirrorSettings} and whose defaults are the
 * mirror's ({@link MirrorSettings#defaults()}); and the worker's knobs, with the defaults below.
 *
 * @param decodeWorkers N: threads decoding chunks in parallel (the mirror's {@code
 *     decodeWorkers}).
 * @param chunkSize K: events per chunk handed to a decode worker. Larger chunks cost fewer
 *     hand-offs; smaller ones spread work more evenly (the mirror's {@code chunkSize}).
 * @param maxInFlightChunks chunks read but not yet written to the sink, which bounds memory
 *     together with {@code maxChunkBytes}. The effective bound is at least {@code
 *     decodeWorkers} (see {@link #effectiveMaxInFlightChunks()}) so every worker can be busy.
 *     Default: twice the decode workers.
 * @param maxChunkBytes a chunk is cut early once its raw events reach this many bytes.
 *     Default 16 MiB (one maximum-size change event).
 * @param maxBatchSize events read per call, at most (the mirror's {@code batchSize}).
 * @param idleTimeout the call ends after this long without a new event (the mirror's {@code
 *     idleTimeoutSeconds}).
 * @param maxBatchDuration the call ends after this long even if events keep coming, so a
 *     trickling stream still commits (the mirror's {@code maxBatchDurationSeconds}).
 * @param commitIntervalRecords commit the sink every this many records within a call (0: only
 *     at the end of the call). Default 0.
 * @param commitIntervalBytes commit the sink once the records written since the last commit
 *     hold this many source bytes (0: no byte bound), so large documents commit as often as
 *     many small ones. Default 0.
 * @param maxVisibilityDelay commit the sink once the oldest record written since the last commit
 *     was read this long ago, so records become visible within it however long the call lasts;
 *     the sink also commits at once when the reader has caught up with the stream. Default 1 s.
 * @param progressInterval how often progress is reported (it feeds heartbeats). Default 2 s.
 * @param shutdownTimeout how long a failed or cancelled call waits for its threads to stop.
 *     Default 30 s.
 * @param maxStreamReopens how often one call may reopen the stream after "resume token not
 *     found" before the history counts as lost. Default 3.
 * @param controlEventPolicy what to do on drop, rename, dropDatabase and invalidate (the
 *     mirror's {@code controlEventPolicy}).
 */
public record PullSettings(
    int decodeWorkers,
    int chunkSize,
    int maxInFlightChunks,
    int maxChunkBytes,
    int maxBatchSize,
    Duration idleTimeout,
    Duration maxBatchDuration,
    int commitIntervalRecords,
    long commitIntervalBytes,
    Duration maxVisibilityDelay,
    Duration progressInterval,
    Duration shutdownTimeout,
    int maxStreamReopens,
    ControlEventPolicy controlEventPolicy) {

  public static final int DEFAULT_MAX_CHUNK_BYTES = 16 * 1024 * 1024;
  public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofSeconds(2);
  public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);
  public static final int DEFAULT_MAX_STREAM_REOPENS = 3;

  public PullSettings {
    requireAtLeast("decodeWorkers", decodeWorkers, 1);
    requireAtLeast("chunkSize", chunkSize, 1);
    requireAtLeast("maxInFlightChunks", maxInFlightChunks, 1);
    requireAtLeast("maxChunkBytes", maxChunkBytes, 1);
    requireAtLeast("maxBatchSize", maxBatchSize, 1);
    requirePositive("idleTimeout", idleTimeout);
    requirePositive("maxBatchDuration", maxBatchDuration);
    requireAtLeast("commitIntervalRecords", commitIntervalRecords, 0);
    requireAtLeast("commitIntervalBytes", commitIntervalBytes, 0);
    requirePositive("maxVisibilityDelay", maxVisibilityDelay);
    requirePositive("progressInterval", progressInterval);
    requirePositive("shutdownTimeout", shutdownTimeout);
    requireAtLeast("maxStreamReopens", maxStreamReopens, 0);
    Objects.requireNonNull(controlEventPolicy, "controlEventPolicy must be PAUSE or IGNORE");
  }

  public static PullSettings defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    return new Builder()
        .decodeWorkers(decodeWorkers)
        .chunkSize(chunkSize)
        .maxInFlightChunks(maxInFlightChunks)
        .maxChunkBytes(maxChunkBytes)
        .maxBatchSize(maxBatchSize)
        .idleTimeout(idleTimeout)
        .maxBatchDuration(maxBatchDuration)
        .commitIntervalRecords(commitIntervalRecords)
        .commitIntervalBytes(commitIntervalBytes)
        .maxVisibilityDelay(maxVisibilityDelay)
        .progressInterval(progressInterval)
        .shutdownTimeout(shutdownTimeout)
        .maxStreamReopens(maxStreamReopens)
        .controlEventPolicy(controlEventPolicy);
  }

  /**
   * The in-flight bound actually used: never below the number of decode workers, because a
   * lower bound would leave workers idle and silently cap the parallelism asked for.
   */
  public int effectiveMaxInFlightChunks() {
    return Math.max(maxInFlightChunks, decodeWorkers);
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

  /** Builds settings; every field starts at its default, the mirror's ones at the mirror's defaults. */
  public static final class Builder {
    private int decodeWorkers;
    private int chunkSize;
    private Integer maxInFlightChunks;
    private int maxChunkBytes = DEFAULT_MAX_CHUNK_BYTES;
    private int maxBatchSize;
    private Duration idleTimeout;
    private Duration maxBatchDuration;
    private int commitIntervalRecords;
    private long commitIntervalBytes;
    private Duration maxVisibilityDelay;
    private Duration progressInterval = DEFAULT_PROGRESS_INTERVAL;
    private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
    private int maxStreamReopens = DEFAULT_MAX_STREAM_REOPENS;
    private ControlEventPolicy controlEventPolicy;

    private Builder() {
      mirror(MirrorSettings.defaults());
    }

    /** The mirror's own settings: decode workers, chunk size, batch bounds and control event policy. */
    public Builder mirror(MirrorSettings settings) {
      return decodeWorkers(settings.decodeWorkers())
          .chunkSize(settings.chunkSize())
          .maxBatchSize(settings.batchSize())
          .idleTimeout(Duration.ofSeconds(settings.idleTimeoutSeconds()))
          .maxBatchDuration(Duration.ofSeconds(settings.maxBatchDurationSeconds()))
          .maxVisibilityDelay(Duration.ofMillis(settings.maxVisibilityDelay()))
          .controlEventPolicy(settings.controlEventPolicy());
    }

    public Builder decodeWorkers(int value) {
      decodeWorkers = value;
      return this;
    }

    public Builder chunkSize(int value) {
      chunkSize = value;
      return this;
    }

    public Builder maxInFlightChunks(int value) {
      maxInFlightChunks = value;
      return this;
    }

    public Builder maxChunkBytes(int value) {
      maxChunkBytes = value;
      return this;
    }

    public Builder maxBatchSize(int value) {
      maxBatchSize = value;
      return this;
    }

    public Builder idleTimeout(Duration value) {
      idleTimeout = value;
      return this;
    }

    public Builder maxBatchDuration(Duration value) {
      maxBatchDuration = value;
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

    public Builder maxVisibilityDelay(Duration value) {
      maxVisibilityDelay = value;
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

    public Builder controlEventPolicy(ControlEventPolicy value) {
      controlEventPolicy = value;
      return this;
    }

    /** @throws IllegalArgumentException naming the first setting that cannot work */
    public PullSettings build() {
      return new PullSettings(
          decodeWorkers,
          chunkSize,
          maxInFlightChunks == null ? 2 * Math.max(decodeWorkers, 1) : maxInFlightChunks,
          maxChunkBytes,
          maxBatchSize,
          idleTimeout,
          maxBatchDuration,
          commitIntervalRecords,
          commitIntervalBytes,
          maxVisibilityDelay,
          progressInterval,
          shutdownTimeout,
          maxStreamReopens,
          controlEventPolicy);
    }
  }
}
