package io.mongocdc.activities;

import io.mongocdc.pipeline.RecordSink;

/** The destination's sink for one batch attempt; closed by the activity when the pull returns. */
public interface BatchSink extends RecordSink, AutoCloseable {

  /** Rows its committed transactions appended to history tables (a replayed event appends none). */
  default long historyRowsCommitted() {
    return 0;
  }

  /** Releases the sink's connection. Never throws. */
  @Override
  void close();
}
