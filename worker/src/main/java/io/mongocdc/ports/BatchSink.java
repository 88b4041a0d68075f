package io.mongocdc.ports;

import io.mongocdc.pipeline.RecordSink;
import java.util.Map;

/** The destination's sink for one batch attempt; closed by the activity when the pull returns. */
public interface BatchSink extends RecordSink, AutoCloseable {

  /** Rows its committed transactions appended to history tables (a replayed event appends none). */
  default long historyRowsCommitted() {
    return 0;
  }

  /**
   * Typed column values that did not convert in the rows its committed transactions wrote, by
   * table and column (see {@code _drift}).
   */
  default Map<String, Map<String, Long>> driftCommitted() {
    return Map.of();
  }

  /** Releases the sink's connection. Never throws. */
  @Override
  void close();
}
