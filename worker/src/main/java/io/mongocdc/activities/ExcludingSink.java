package io.mongocdc.activities;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Operation;
import io.mongocdc.pipeline.RecordSink;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drops records whose operation type the mirror excludes before they reach the destination.
 * The pipeline still counts them as delivered, so the checkpoint passes them: an excluded event
 * is skipped once, not met again on every batch.
 */
final class ExcludingSink implements RecordSink {

  private final RecordSink delegate;
  private final Set<String> excluded;
  private final AtomicLong excludedCount = new AtomicLong();

  ExcludingSink(RecordSink delegate, List<String> excludedOperations) {
    this.delegate = delegate;
    this.excluded = Set.copyOf(excludedOperations);
  }

  boolean excludes(Operation operation) {
    return excluded.contains(operation.operationType());
  }

  long excludedCount() {
    return excludedCount.get();
  }

  @Override
  public void write(List<ChangeRecord> records) throws Exception {
    if (excluded.isEmpty()) {
      delegate.write(records);
      return;
    }
    List<ChangeRecord> kept = records.stream().filter(r -> !excludes(r.operation())).toList();
    excludedCount.addAndGet(records.size() - kept.size());
    if (!kept.isEmpty()) {
      delegate.write(kept);
    }
  }

  @Override
  public void commit() throws Exception {
    delegate.commit();
  }

  @Override
  public void abort(Throwable cause) {
    delegate.abort(cause);
  }
}
