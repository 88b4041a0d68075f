package io.mongocdc.activities;

import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.decode.MirrorHistory;
import io.mongocdc.ports.MirrorTable;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.Operation;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A destination in memory that applies records as the PostgreSQL one must: idempotently, each
 * row keeping the position of the event that last wrote it, so a replay never goes backwards.
 */
public final class InMemoryDestination implements MirrorDestination {

  private record Row(String document, ResumeToken position, boolean deleted) {}

  private final Map<String, Map<String, Row>> tables = new HashMap<>();
  private final List<String> created = new ArrayList<>();
  private final AtomicInteger recordsApplied = new AtomicInteger();
  private int recordsCommitted;
  private final AtomicInteger dropped = new AtomicInteger();
  private volatile io.mongocdc.pipeline.RecordScreen screen = io.mongocdc.pipeline.RecordScreen.ACCEPT_ALL;

  /** Makes every batch attempt ask {@code screen} whether a record can be held. */
  public void screenWith(io.mongocdc.pipeline.RecordScreen screen) {
    this.screen = screen;
  }

  @Override
  public io.mongocdc.pipeline.RecordScreen screen(MirrorConfig mirror) {
    return screen;
  }

  @Override
  public void validate(MirrorConfig mirror) {}

  @Override
  public synchronized List<String> createTables(MirrorConfig mirror) {
    List<String> names = mirror.collections().stream()
        .map(c -> mirror.destinationSchema() + "." + c)
        .toList();
    names.forEach(name -> {
      tables.computeIfAbsent(name, n -> new TreeMap<>());
      if (!created.contains(name)) {
        created.add(name);
      }
    });
    return names;
  }

  @Override
  public DestinationTableResolver tableResolver(MirrorConfig mirror) {
    return ns -> mirror.destinationSchema() + "." + ns.collection();
  }

  private volatile java.util.function.LongSupplier pruning = () -> 0;

  /** What {@link #pruneHistory} does: returns the rows it says it pruned, or throws. */
  public void pruneWith(java.util.function.LongSupplier pruning) {
    this.pruning = pruning;
  }

  @Override
  public long pruneHistory(MirrorConfig mirror) {
    return pruning.getAsLong();
  }

  private volatile java.util.function.Function<TypedColumnsRequest, TypedColumnsAligned> aligning =
      request -> new TypedColumnsAligned(0, null);

  /** What {@link #alignTypedColumns} does: called on the activity's thread, it may block it. */
  public void alignWith(java.util.function.Function<TypedColumnsRequest, TypedColumnsAligned> aligning) {
    this.aligning = aligning;
  }

  @Override
  public TypedColumnsAligned alignTypedColumns(TypedColumnsRequest request, Runnable progress) {
    return aligning.apply(request);
  }

  private volatile java.util.function.BiFunction<io.mongocdc.workflows.model.FieldRuleRewrite,
      io.mongocdc.source.ResumeToken, io.mongocdc.workflows.model.FieldRuleRewrite> rewriting =
      (rewrite, upTo) -> rewrite.finished(rewrite.rowsRewritten());

  /** What a field rule rewrite does, given the rewrite and the position it goes up to; by default nothing. */
  public void rewriteWith(java.util.function.BiFunction<io.mongocdc.workflows.model.FieldRuleRewrite,
      io.mongocdc.source.ResumeToken, io.mongocdc.workflows.model.FieldRuleRewrite> rewriting) {
    this.rewriting = rewriting;
  }

  @Override
  public io.mongocdc.workflows.model.FieldRuleRewrite rewriteFieldRules(MirrorConfig mirror,
      io.mongocdc.workflows.model.FieldRuleRewrite rewrite, io.mongocdc.source.ResumeToken after,
      io.mongocdc.source.ResumeToken upTo, io.mongocdc.privacy.MirrorRedaction added, Runnable progress) {
    return rewriting.apply(rewrite, upTo);
  }

  /** How a sink's commit goes: {@code apply} makes its records durable; the step may also block or throw. */
  public interface CommitStep {
    void commit(int sink, Runnable apply) throws Exception;
  }

  private volatile int lanes = 1;
  private volatile CommitStep commitStep = (sink, apply) -> apply.run();
  private final AtomicInteger sinksOpened = new AtomicInteger();

  /** Batches apply through this many sinks at once, as the PostgreSQL destination's apply lanes. */
  public void lanes(int count) {
    this.lanes = count;
  }

  @Override
  public int applyLanes(MirrorConfig mirror) {
    return lanes;
  }

  /** Every commit goes through {@code step}, told which sink (numbered from 1 as they are opened) commits. */
  public void commitWith(CommitStep step) {
    this.commitStep = step;
  }

  @Override
  public RecordSink openSink(MirrorConfig mirror, long batchId) {
    java.util.function.Predicate<io.mongocdc.decode.Namespace> keepsHistory = MirrorHistory.keepsHistory(mirror);
    int number = sinksOpened.incrementAndGet();
    return new RecordSink() {
      private final List<ChangeRecord> staged = new ArrayList<>();
      private long historyRows;

      @Override
      public void write(List<ChangeRecord> records) {
        staged.addAll(records);
      }

      @Override
      public void commit() throws Exception {
        commitStep.commit(number, () -> {
          apply(staged);
          // one history row per record of a history collection (this fake never sees a replay)
          historyRows += staged.stream().filter(r -> keepsHistory.test(r.source())).count();
          staged.clear();
        });
      }

      @Override
      public long historyRowsCommitted() {
        return historyRows;
      }

      @Override
      public void abort(Throwable cause) {}

      @Override
      public void close() {}
    };
  }

  @Override
  public List<MirrorTable> plannedTables(MirrorConfig mirror) {
    return mirror.collections().stream()
        .map(c -> new MirrorTable(mirror.destinationPeer(), mirror.destinationSchema(), c, mirror.sourceDatabase() + "." + c))
        .toList();
  }

  @Override
  public void checkReachable(String destinationPeer) {}

  @Override
  public synchronized void dropTables(List<MirrorTable> dropping) {
    dropped.incrementAndGet();
    dropping.forEach(table -> tables.remove(table.schema() + "." + table.table()));
  }

  private synchronized void apply(List<ChangeRecord> records) {
    recordsCommitted += records.size();
    notifyAll();
    for (ChangeRecord record : records) {
      Map<String, Row> table = tables.computeIfAbsent(record.table(), t -> new TreeMap<>());
      Row current = table.get(record.key());
      if (current != null && !record.position().isAfter(current.position())) {
        continue; // a replay: the row already holds this event or a newer one
      }
      boolean delete = record.operation() == Operation.DELETE;
      String document = delete ? null : record.document() != null ? record.document() : current == null ? null : current.document();
      table.put(record.key(), new Row(document, record.position(), delete));
      recordsApplied.incrementAndGet();
    }
  }

  /** Marks deleted, as the PostgreSQL destination does, the live rows of {@code table} older than {@code position}. */
  @Override
  public synchronized long deleteRowsOlderThan(MirrorConfig mirror, io.mongocdc.decode.Namespace source, String table,
      ResumeToken position, java.time.Instant commitTime) {
    long deleted = 0;
    for (Map.Entry<String, Row> entry : tables.getOrDefault(table, new TreeMap<>()).entrySet()) {
      Row row = entry.getValue();
      if (!row.deleted() && position.isAfter(row.position())) {
        entry.setValue(new Row(row.document(), position, true));
        deleted++;
      }
    }
    return deleted;
  }

  /** The live rows of a table: key to document. */
  public synchronized Map<String, String> rows(String table) {
    Map<String, String> live = new TreeMap<>();
    tables.getOrDefault(table, Map.of()).forEach((key, row) -> {
      if (!row.deleted()) {
        live.put(key, row.document());
      }
    });
    return live;
  }

  public synchronized List<String> createdTables() {
    return List.copyOf(created);
  }

  /** Records committed by sinks, replays included. */
  public synchronized int recordsCommitted() {
    return recordsCommitted;
  }

  /** Waits until sinks committed at least {@code count} records. */
  public synchronized void awaitCommitted(int count, java.time.Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (recordsCommitted < count) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("only " + recordsCommitted + " records were committed, expected " + count);
      }
      wait(Math.max(1, left / 1_000_000));
    }
  }

  /** Rows written (replays that changed nothing not counted). */
  public int recordsApplied() {
    return recordsApplied.get();
  }

  public int dropCalls() {
    return dropped.get();
  }
}
