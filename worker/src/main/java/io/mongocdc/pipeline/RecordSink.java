package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeRecord;
import java.util.List;
import java.util.Map;

/**
 * Where the pipeline delivers records: the destination's side of PullRecords.
 *
 * <p>The sender calls {@link #write} with chunks of records in exact source order, from one
 * thread, then {@link #commit} when the records written so far must become durable. Only after
 * {@code commit} returns does the delivered checkpoint move. A sink may stage written records
 * (for example in an open transaction) until then.
 *
 * <p>A destination's sink is opened for one batch attempt and closed by whoever opened it once the
 * pull returns; what its committed transactions wrote beyond the records is in its committed
 * figures.
 */
public interface RecordSink extends AutoCloseable {

  /** Stages records, in source order. May block: that is the back-pressure the reader feels. */
  void write(List<ChangeRecord> records) throws Exception;

  /** Makes everything written so far durable; returns only once it is. */
  void commit() throws Exception;

  /**
   * The pull failed or was cancelled: discard whatever was written and not committed. Called
   * once, possibly from another thread while {@link #write} or {@link #commit} blocks, which it
   * should then unblock. Must not throw.
   */
  default void abort(Throwable cause) {}

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

  /** Releases what the sink holds (a destination's connection). Never throws. */
  @Override
  default void close() {}
}
