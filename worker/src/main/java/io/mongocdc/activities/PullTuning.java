package io.mongocdc.activities;

import io.mongocdc.pipeline.ControlEventPolicy;
import io.mongocdc.pipeline.PullSettings;
import io.mongocdc.workflows.model.MirrorSettings;
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
 */
public record PullTuning(
    Duration progressInterval, int commitIntervalRecords, long commitIntervalBytes, Duration shutdownTimeout) {

  public static PullTuning defaults() {
    return new PullTuning(Duration.ofSeconds(2), 50_000, 64L << 20, Duration.ofSeconds(30));
  }

  /**
   * The pipeline settings of one batch.
   *
   * @throws InvalidMirrorConfigurationException if the mirror's settings cannot work
   */
  public PullSettings pullSettings(MirrorSettings settings) {
    try {
      return PullSettings.builder()
          .decodeWorkers(settings.decodeWorkers())
          .chunkSize(settings.chunkSize())
          .maxBatchSize(settings.batchSize())
          .idleTimeout(Duration.ofSeconds(settings.idleTimeoutSeconds()))
          .maxBatchDuration(Duration.ofSeconds(settings.maxBatchDurationSeconds()))
          .controlEventPolicy(ControlEventPolicy.valueOf(settings.controlEventPolicy()))
          .progressInterval(progressInterval)
          .commitIntervalRecords(commitIntervalRecords)
          .commitIntervalBytes(commitIntervalBytes)
          .shutdownTimeout(shutdownTimeout)
          .build();
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new InvalidMirrorConfigurationException("settings: " + e.getMessage());
    }
  }
}
