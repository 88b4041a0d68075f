package io.mongocdc.workflows.model;

/** What a mirror's workflow is doing. */
public enum MirrorPhase {
  /** Validating, creating destination tables, registering, taking the starting point. */
  SETTING_UP,
  /**
   * Copying the documents that existed before the starting point (and sweeping after a resync's
   * copy), while the change batches go on beside it.
   */
  SNAPSHOTTING,
  /** Pulling and committing batches. */
  RUNNING,
  /** Paused by an operator or by a control event; waits for {@code resume}. */
  PAUSED,
  /** A batch failed after its activity retries; the workflow waits, then tries again. */
  BACKING_OFF,
  /** A failure that retrying cannot fix (history lost, bad configuration, authentication); waits for the operator. */
  FAILED,
  /** Stopped for good by the {@code terminate} signal. */
  TERMINATED
}
