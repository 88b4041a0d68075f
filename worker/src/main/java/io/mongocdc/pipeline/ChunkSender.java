package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ControlEvent;
import io.mongocdc.decode.DecodedEvent;
import io.mongocdc.decode.SkippedEvent;
import io.mongocdc.decode.UndecodableEvent;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.ControlEventPolicy;
import io.mongocdc.workflows.model.MirrorSettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sender stage: takes chunks strictly in the order the reader cut them, writes their records
 * to the sink, and moves the delivered checkpoint only when the sink has committed them.
 *
 * <p>With several apply lanes the sender routes each record by its table and key to one lane, so
 * every document's records reach one connection in source order, and the lanes write in parallel.
 * A commit asks every lane to commit and waits for all of them: the delivered checkpoint moves
 * only when every transaction holding records up to it has committed. Lanes never share a key,
 * so their transactions never wait on each other's row locks.
 *
 * <p>Records become visible when the sink commits, so the sender commits for visibility as well
 * as for size: once the oldest record written since the last commit was read the mirror's {@code
 * maxVisibilityDelay} ago (it waits for chunks with that deadline, so it commits
 * even when none arrives), and at once when the reader reports it has caught up with the stream.
 */
final class ChunkSender implements Runnable {

  private static final Logger log = LoggerFactory.getLogger(ChunkSender.class);
  /** Mirror and operation type of each kind of event passed over that was logged: once per worker process. */
  private static final Set<String> LOGGED_SKIPS = ConcurrentHashMap.newKeySet();

  private final String mirror;
  private final MirrorSettings mirrorSettings;
  private final PullSettings settings;
  /** The mirror's {@code maxVisibilityDelay}, in nanoseconds. */
  private final long maxVisibilityDelayNanos;
  private final RecordSink sink;
  private final List<ApplyLane> lanes;
  private final BlockingQueue<ChunkInFlight> fromReader;
  private final Semaphore inFlightPermits;
  private final PipelineCounters counters;
  private final PullOutcome outcome;
  private final Runnable stopReader;
  private final PoisonEvents poison;
  private final FreshnessListener freshnessListener;
  private final FreshnessTally freshness = new FreshnessTally();
  private final CopyReplays copyReplays;
  private final CaughtUpSignal caughtUp;

  private final Map<String, TableTally.Counter> stagedByTable = new LinkedHashMap<>();
  private final Map<String, TableTally.Counter> deliveredByTable = new LinkedHashMap<>();
  private ResumeToken firstStaged;
  private final List<ControlEvent> controlEvents = new ArrayList<>();
  /** One reference, so a reader never sees counts of records beyond the checkpoint they go with. */
  private volatile Delivered delivered;
  private StreamPosition staged;
  private ControlEvent stoppedAt;
  private long recordsSinceCommit;
  /** Batch figures counted since the last commit (events set aside, passed over): delivered at the next one. */
  private BatchFigures countedSinceCommit = BatchFigures.none();
  private long bytesSinceCommit;
  /** When the oldest record written since the last commit was read; meaningful while there is one. */
  private long oldestUncommittedNanos;
  /** The source commit times (epoch ms) of the records written since the last commit. */
  private final PendingCommitTimes uncommittedCommitTimes = new PendingCommitTimes();
  private boolean sinkCommitted;
  private long expectedSequence;

  ChunkSender(
      String mirror,
      StreamPosition start,
      MirrorSettings mirrorSettings,
      PullSettings settings,
      RecordSink sink,
      List<ApplyLane> lanes,
      BlockingQueue<ChunkInFlight> fromReader,
      Semaphore inFlightPermits,
      PipelineCounters counters,
      PullOutcome outcome,
      Runnable stopReader,
      PoisonEvents poison,
      FreshnessListener freshnessListener,
      CopyReplays copyReplays,
      CaughtUpSignal caughtUp) {
    this.mirror = mirror;
    this.copyReplays = copyReplays;
    this.caughtUp = caughtUp;
    this.freshnessListener = freshnessListener;
    this.delivered = new Delivered(start, Map.of(), null, BatchFigures.none(), null);
    this.poison = poison;
    this.staged = start;
    this.mirrorSettings = mirrorSettings;
    this.settings = settings;
    this.maxVisibilityDelayNanos = TimeUnit.MILLISECONDS.toNanos(mirrorSettings.maxVisibilityDelay());
    this.sink = sink;
    this.lanes = List.copyOf(lanes);
    this.fromReader = fromReader;
    this.inFlightPermits = inFlightPermits;
    this.counters = counters;
    this.outcome = outcome;
    this.stopReader = stopReader;
  }

  /**
   * What the sink has durably committed so far; safe to read from any thread.
   *
   * @param position the position up to which records are committed
   * @param tables the committed records and bytes per destination table
   * @param firstRecord the position of the first committed record, or null before one
   * @param counted the batch figures the sender counts, up to the position: poison events set aside,
   *     events passed over per operation type ({@link SkippedEvent})
   * @param freshness how fresh the committed records were when they became visible; null before one
   */
  record Delivered(StreamPosition position, Map<String, TableTally> tables, ResumeToken firstRecord,
      BatchFigures counted, Freshness freshness) {}

  Delivered delivered() {
    return delivered;
  }

  List<ControlEvent> controlEvents() {
    return List.copyOf(controlEvents);
  }

  ControlEvent stoppedAt() {
    return stoppedAt;
  }

  @Override
  public void run() {
    try {
      while (stoppedAt == null) {
        ChunkInFlight next = nextChunk();
        if (next == null) {
          // The oldest uncommitted record has waited as long as it may to become visible.
          commit();
          continue;
        }
        if (next == ChunkInFlight.END) {
          break;
        }
        if (next == ChunkInFlight.CAUGHT_UP) {
          if (hasUncommitted()) {
            commit();
          }
          caughtUp.clear();
          continue;
        }
        if (next.sequence() != expectedSequence) {
          throw new IllegalStateException("chunk " + next.sequence() + " reached the sender before chunk "
              + expectedSequence);
        }
        expectedSequence++;
        deliver(awaitDecoded(next), next.firstReadNanos());
      }
      commit();
    } catch (InterruptedException e) {
      // An abort interrupted us; the outcome is already decided.
      outcome.fail(new IllegalStateException("sender of mirror '" + mirror + "' interrupted", e));
    } catch (Throwable t) {
      outcome.fail(t);
    } finally {
      lanes.forEach(ApplyLane::stop);
    }
  }

  /**
   * The next chunk or marker; null once the visibility deadline of what is written but not
   * committed has passed without one.
   */
  private ChunkInFlight nextChunk() throws InterruptedException {
    if (!hasUncommitted()) {
      return fromReader.take();
    }
    long left = oldestUncommittedNanos + maxVisibilityDelayNanos - System.nanoTime();
    return left <= 0 ? null : fromReader.poll(left, TimeUnit.NANOSECONDS);
  }

  private boolean hasUncommitted() {
    return recordsSinceCommit > 0 || countedSinceCommit.get(BatchFigures.RECORDS_QUARANTINED) > 0;
  }

  private DecodedChunk awaitDecoded(ChunkInFlight next) throws Exception {
    long waitStart = System.nanoTime();
    try {
      return next.decoded().get();
    } catch (ExecutionException e) {
      throw asException(ChunkReader.unwrap(e));
    } finally {
      counters.senderWaitNanos.addAndGet(System.nanoTime() - waitStart);
    }
  }

  private void deliver(DecodedChunk chunk, long firstReadNanos) throws Exception {
    if (!hasUncommitted()) {
      oldestUncommittedNanos = firstReadNanos;
    }
    List<ChangeRecord> records = new ArrayList<>(chunk.events().size());
    ResumeToken reach = chunk.lastToken();
    ResumeToken lastBeforeStop = null;
    for (DecodedEvent event : chunk.events()) {
      if (event instanceof ChangeRecord record) {
        PoisonEvent refused = poison.screen(record);
        if (refused == null) {
          records.add(record);
        } else {
          setAside(refused);
        }
      } else if (event instanceof UndecodableEvent undecodable) {
        setAside(PoisonEvent.undecodable(undecodable));
      } else if (event instanceof SkippedEvent skipped) {
        passOver(skipped);
      } else {
        ControlEvent control = (ControlEvent) event;
        controlEvents.add(control);
        if (mirrorSettings.controlEventPolicy() == ControlEventPolicy.PAUSE) {
          stoppedAt = control;
          log.warn("mirror {}: {}; ending the batch before it (policy PAUSE)", mirror, control.describe());
          break;
        }
        log.warn("mirror {}: {}; ignored (policy IGNORE)", mirror, control.describe());
      }
      lastBeforeStop = event.position();
    }
    if (stoppedAt != null) {
      // The checkpoint must stop short of the control event so it is met again on resume.
      reach = lastBeforeStop;
      stopReader.run();
    }
    if (!records.isEmpty()) {
      write(records, chunk.lease());
      counters.recordsStaged.addAndGet(records.size());
      recordsSinceCommit += records.size();
      for (ChangeRecord record : records) {
        bytesSinceCommit += record.sourceBytes();
        // A replay over a copy is written all the same, but the copy made it visible: it is no lag.
        if (!copyReplays.isReplay(record)) {
          uncommittedCommitTimes.add(record.commitTime().toEpochMilli());
        }
      }
      count(records);
    } else {
      chunk.lease().release();
    }
    inFlightPermits.release();
    if (reach != null) {
      staged = StreamPosition.after(reach);
    }
    if (settings.commitIntervalRecords() > 0 && recordsSinceCommit >= settings.commitIntervalRecords()
        || settings.commitIntervalBytes() > 0 && bytesSinceCommit >= settings.commitIntervalBytes()) {
      commit();
    }
  }

  /**
   * Fails the pull with the event, or sets it aside before any later record is committed: the
   * checkpoint cannot pass it unless it is kept.
   */
  private void setAside(PoisonEvent event) throws Exception {
    poison.take(event);
    countedSinceCommit = countedSinceCommit.plus(BatchFigures.RECORDS_QUARANTINED, 1L);
    log.warn("mirror {}: set aside the {} (poisonEventPolicy QUARANTINE)", mirror, event.describe());
  }

  /** Counts an event passed over; its checkpoint moves with the chunk's. The first of a type is logged. */
  private void passOver(SkippedEvent event) {
    countedSinceCommit = countedSinceCommit.plus(BatchFigures.EVENTS_SKIPPED, Map.of(event.operationType(), 1L));
    if (LOGGED_SKIPS.add(mirror + "\u0000" + event.operationType())) {
      log.warn("mirror {}: passing over events of type '{}' (first at {}); they are counted per type in status,"
          + " the catalog's batches and metrics", mirror, event.operationType(), event.position());
    }
  }

  /**
   * Writes one chunk's records, and gives its decoded bytes back once the destination has taken
   * them: at once with one sink, when the last lane has written its part with several (until then
   * the records sit in the lanes' queues).
   */
  private void write(List<ChangeRecord> records, DecodedBytesBudget.Lease lease) throws Exception {
    long writeStart = System.nanoTime();
    if (lanes.isEmpty()) {
      sink.write(records);
      counters.sinkWriteNanos.addAndGet(System.nanoTime() - writeStart);
      lease.release();
      return;
    }
    List<List<ChangeRecord>> parts = new ArrayList<>(lanes.size());
    for (int i = 0; i < lanes.size(); i++) {
      parts.add(new ArrayList<>(records.size() / lanes.size() + 16));
    }
    for (ChangeRecord record : records) {
      parts.get(ApplyRouting.laneOf(record, lanes.size())).add(record);
    }
    AtomicInteger partsLeft = new AtomicInteger((int) parts.stream().filter(part -> !part.isEmpty()).count());
    Runnable partWritten = () -> {
      if (partsLeft.decrementAndGet() == 0) {
        lease.release();
      }
    };
    for (int i = 0; i < lanes.size(); i++) {
      if (!parts.get(i).isEmpty()) {
        lanes.get(i).send(parts.get(i), partWritten);
      }
    }
    counters.applyBackPressureNanos.addAndGet(System.nanoTime() - writeStart);
  }

  /** The records the commit just made visible: how fresh each was. */
  private Freshness measureFreshness() {
    if (uncommittedCommitTimes.records() == 0) {
      return delivered.freshness();
    }
    long now = System.currentTimeMillis();
    PendingCommitTimes times = uncommittedCommitTimes;
    freshness.add(now, times.millis(), times.kept(), times.weight());
    freshnessListener.onVisible(now, times.millis(), times.kept());
    times.clear();
    return freshness.summary();
  }

  /**
   * Makes what was written durable and moves the delivered checkpoint to what was staged. With
   * nothing written since the last commit there is nothing to make durable: only the checkpoint
   * moves (to a post-batch token, or past events the sink was not given). The sinks are still
   * committed once in a call that committed nothing else, as every call always has been.
   */
  private void commit() throws Exception {
    if (!hasUncommitted() && sinkCommitted) {
      delivered = new Delivered(staged, delivered.tables(), delivered.firstRecord(), committedCounts(),
          delivered.freshness());
      return;
    }
    long commitStart = System.nanoTime();
    if (lanes.isEmpty()) {
      sink.commit();
    } else {
      CountDownLatch committed = new CountDownLatch(lanes.size());
      for (ApplyLane lane : lanes) {
        lane.send(new ApplyLane.Commit(committed));
      }
      // A lane that fails aborts the pull, which interrupts this wait.
      committed.await();
    }
    sinkCommitted = true;
    counters.sinkCommitNanos.addAndGet(System.nanoTime() - commitStart);
    counters.recordsDelivered.addAndGet(recordsSinceCommit);
    recordsSinceCommit = 0;
    bytesSinceCommit = 0;
    delivered = new Delivered(staged, committedTallies(), delivered.firstRecord() != null ? delivered.firstRecord()
        : firstStaged, committedCounts(), measureFreshness());
  }

  /** The figures counted since the last commit join those before. */
  private BatchFigures committedCounts() {
    BatchFigures all = delivered.counted().plus(countedSinceCommit);
    countedSinceCommit = BatchFigures.none();
    return all;
  }

  private void count(List<ChangeRecord> records) {
    if (firstStaged == null) {
      firstStaged = records.get(0).position();
    }
    for (ChangeRecord record : records) {
      stagedByTable
          .computeIfAbsent(record.table(), table -> new TableTally.Counter(record.source().fullName()))
          .add(record);
    }
  }

  /** The staged counts are committed now: they join the delivered ones, which readers get as a copy. */
  private Map<String, TableTally> committedTallies() {
    if (stagedByTable.isEmpty()) {
      return delivered.tables();
    }
    stagedByTable.forEach((table, staged) ->
        deliveredByTable.computeIfAbsent(table, t -> new TableTally.Counter(staged.sourceNamespace())).addAll(staged));
    stagedByTable.clear();
    Map<String, TableTally> copy = new LinkedHashMap<>();
    deliveredByTable.forEach((table, counter) -> copy.put(table, counter.snapshot()));
    return Collections.unmodifiableMap(copy);
  }

  private static Exception asException(Throwable t) {
    if (t instanceof Exception e) {
      return e;
    }
    if (t instanceof Error error) {
      throw error;
    }
    return new RuntimeException(t);
  }
}
