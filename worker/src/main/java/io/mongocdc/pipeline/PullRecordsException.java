package io.mongocdc.pipeline;

import io.mongocdc.source.StreamPosition;

/**
 * A pull failed. The cause is the first failure of any stage (never a later one that the
 * shutdown provoked); the delivered checkpoint says what was durably committed before it.
 */
public class PullRecordsException extends RuntimeException {

  private final transient PullProgress delivered;

  /** @param delivered the pull's progress when it failed: what was durably committed before the failure */
  public PullRecordsException(String mirror, Throwable cause, PullProgress delivered) {
    super("PullRecords for mirror '" + mirror + "' failed: " + cause, cause);
    this.delivered = delivered;
  }

  /** The position up to which records were durably committed before the failure. */
  public StreamPosition deliveredCheckpoint() {
    return delivered.deliveredCheckpoint();
  }

  /** The pull's progress when it failed: the delivered checkpoint with its per-table counts. */
  public PullProgress delivered() {
    return delivered;
  }
}
