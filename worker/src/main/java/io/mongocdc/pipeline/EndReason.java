package io.mongocdc.pipeline;

import io.mongocdc.workflows.model.ControlEventPolicy;

/** Why a pull ended normally. */
public enum EndReason {
  /** {@link PullSettings#maxBatchSize()} events were read. */
  BATCH_SIZE,
  /** No event arrived for {@link PullSettings#idleTimeout()}. */
  IDLE_TIMEOUT,
  /** The call ran for {@link PullSettings#maxBatchDuration()}. */
  MAX_DURATION,
  /** A control event was met under {@link ControlEventPolicy#PAUSE}. */
  CONTROL_EVENT,
  /** Other batches waited for what this one held, and it had had its turn ({@link TurnSignal}). */
  TURN_OVER
}
