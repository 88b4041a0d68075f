package io.mongocdc.activities;

import io.mongocdc.pipeline.RecordSink;

/** The destination's sink for one batch attempt; closed by the activity when the pull returns. */
public interface BatchSink extends RecordSink, AutoCloseable {

  /** Releases the sink's connection. Never throws. */
  @Override
  void close();
}
