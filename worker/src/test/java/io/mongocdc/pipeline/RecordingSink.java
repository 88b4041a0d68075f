package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.source.scripted.Gate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/** A sink that records what it was given and can block or fail at chosen calls. */
final class RecordingSink implements RecordSink {

  private final List<ChangeRecord> written = new ArrayList<>();
  private final List<ChangeRecord> uncommitted = new ArrayList<>();
  private final List<ChangeRecord> committed = new ArrayList<>();
  private final Map<Integer, Gate> gatesBeforeWrite = new ConcurrentHashMap<>();
  private final Map<Integer, Exception> failuresOnWrite = new ConcurrentHashMap<>();
  private final Map<Integer, Gate> gatesBeforeCommit = new ConcurrentHashMap<>();
  private final Map<Integer, Exception> failuresOnCommit = new ConcurrentHashMap<>();
  private final AtomicInteger commitCalls = new AtomicInteger();
  private final AtomicInteger writeCalls = new AtomicInteger();
  private final AtomicInteger commits = new AtomicInteger();
  private final AtomicReference<Throwable> aborted = new AtomicReference<>();
  private final AtomicInteger callsAfterClose = new AtomicInteger();
  private volatile Exception failureOnCommit;
  private volatile boolean closed;

  /** Blocks write call number {@code call} (0-based) until the gate is released. */
  Gate blockWrite(int call) {
    Gate gate = PipelineCleanup.opensAfterTest(new Gate());
    gatesBeforeWrite.put(call, gate);
    return gate;
  }

  void failWrite(int call, Exception error) {
    failuresOnWrite.put(call, error);
  }

  void failCommit(Exception error) {
    failureOnCommit = error;
  }

  /** Blocks commit call number {@code call} (0-based) until the gate is released. */
  Gate blockCommit(int call) {
    Gate gate = PipelineCleanup.opensAfterTest(new Gate());
    gatesBeforeCommit.put(call, gate);
    return gate;
  }

  void failCommit(int call, Exception error) {
    failuresOnCommit.put(call, error);
  }

  /** From now on any call is a violation (the pull has returned). */
  @Override
  public void close() {
    closed = true;
  }

  @Override
  public void write(List<ChangeRecord> records) throws Exception {
    if (closed) {
      callsAfterClose.incrementAndGet();
    }
    int call = writeCalls.getAndIncrement();
    for (ChangeRecord record : records) {
      if (record == null) {
        throw new AssertionError("the sink was handed a null record");
      }
    }
    Gate gate = gatesBeforeWrite.get(call);
    if (gate != null) {
      gate.pass();
    }
    Exception failure = failuresOnWrite.get(call);
    if (failure != null) {
      throw failure;
    }
    synchronized (this) {
      written.addAll(records);
      notifyAll();
      uncommitted.addAll(records);
    }
  }

  @Override
  public void commit() throws Exception {
    if (closed) {
      callsAfterClose.incrementAndGet();
    }
    int call = commitCalls.getAndIncrement();
    Gate gate = gatesBeforeCommit.get(call);
    if (gate != null) {
      gate.pass();
    }
    if (failureOnCommit != null) {
      throw failureOnCommit;
    }
    Exception failure = failuresOnCommit.get(call);
    if (failure != null) {
      throw failure;
    }
    synchronized (this) {
      committed.addAll(uncommitted);
      uncommitted.clear();
    }
    commits.incrementAndGet();
  }

  @Override
  public void abort(Throwable cause) {
    aborted.compareAndSet(null, cause);
    synchronized (this) {
      uncommitted.clear();
    }
  }

  /** Waits until at least {@code records} records were written, committed or not. */
  synchronized void awaitWritten(int records, java.time.Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (written.size() < records) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("only " + written.size() + " of " + records + " records were written");
      }
      wait(Math.max(1, left / 1_000_000));
    }
  }

  synchronized List<ChangeRecord> written() {
    return new ArrayList<>(written);
  }

  synchronized List<ChangeRecord> committed() {
    return new ArrayList<>(committed);
  }

  int commits() {
    return commits.get();
  }

  int writeCalls() {
    return writeCalls.get();
  }

  Throwable abortCause() {
    return aborted.get();
  }

  int callsAfterClose() {
    return callsAfterClose.get();
  }
}
