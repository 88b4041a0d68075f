package io.mongocdc.pipeline;

import io.mongocdc.source.StreamPosition;

/**
 * A pull failed. The cause is the first failure of any stage (never a later one that the
 * shutdown provoked); the delivered checkpoint says what was durably committed before it.
 */
public class PullRecordsException extends RuntimeException {

  private final StreamPosition deliveredCheckpoint;

  public PullRecordsException(String mirror, Throwable cause, StreamPosition deliveredCheckpoint) {
    super("PullRecords for mirror '" + mirror + "' failed: " + cause, cause);
    this.deliveredCheckpoint = deliveredCheckpoint;
  }

  /** The position up to which records were durably committed before the failure. */
  public StreamPosition deliveredCheckpoint() {
    return deliveredCheckpoint;
  }
}
