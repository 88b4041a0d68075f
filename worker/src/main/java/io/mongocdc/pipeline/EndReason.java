package io.mongocdc.pipeline;

import io.mongocdc.workflows.model.ControlEventPolicy;

/** Why a pull ended normally. */
public enum EndReason {
  /** The mirror's {@code batchSize} events were read. */
  BATCH_SIZE,
  /** No event arrived for the mirror's {@code idleTimeoutSeconds}. */
  IDLE_TIMEOUT,
  /**
   * The call ran for the mirror's {@code maxBatchDurationSeconds}, or for its shorter time limit
   * ({@link PullRecords#withTimeLimit}).
   */
  MAX_DURATION,
  /** A control event was met under {@link ControlEventPolicy#PAUSE}. */
  CONTROL_EVENT,
  /** Other batches waited for what this one held, and it had had its turn ({@link TurnSignal}). */
  TURN_OVER
}
