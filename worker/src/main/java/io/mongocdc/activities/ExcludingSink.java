package io.mongocdc.activities;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Operation;
import io.mongocdc.pipeline.RecordSink;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drops records whose operation type the mirror excludes before they reach the destination, and
 * counts the excluded records each commit passed. The pipeline still counts excluded records as delivered,
 * so the checkpoint passes them: an excluded event is skipped once, not met on every batch.
 *
 * <p>Written and committed from the pipeline's sender thread; the counts are read from others.
 */
final class ExcludingSink implements RecordSink {

  private final RecordSink delegate;
  private final Set<String> excluded;
  private long stagedExcluded;
  private final AtomicLong committedExcluded = new AtomicLong();

  ExcludingSink(RecordSink delegate, List<String> excludedOperations) {
    this.delegate = delegate;
    this.excluded = Set.copyOf(excludedOperations);
  }

  boolean excludes(Operation operation) {
    return excluded.contains(operation.operationType());
  }

  /** Records skipped as excluded, up to the last commit. */
  long committedExcluded() {
    return committedExcluded.get();
  }

  @Override
  public void write(List<ChangeRecord> records) throws Exception {
    List<ChangeRecord> kept = excluded.isEmpty()
        ? records
        : records.stream().filter(r -> !excludes(r.operation())).toList();
    if (!kept.isEmpty()) {
      delegate.write(kept);
    }
    stagedExcluded += records.size() - kept.size();
  }

  @Override
  public void commit() throws Exception {
    delegate.commit();
    committedExcluded.addAndGet(stagedExcluded);
    stagedExcluded = 0;
  }

  @Override
  public void abort(Throwable cause) {
    delegate.abort(cause);
  }
}
