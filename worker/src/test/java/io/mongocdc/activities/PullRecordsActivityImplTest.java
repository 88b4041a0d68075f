package io.mongocdc.activities;

import static io.mongocdc.workflows.model.BatchFigures.ATTEMPTS;
import static io.mongocdc.workflows.model.BatchFigures.END_REASON;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_READ;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_SKIPPED;
import static io.mongocdc.workflows.model.BatchFigures.FIRST_POSITION;
import static io.mongocdc.workflows.model.BatchFigures.FRESHNESS;
import static io.mongocdc.workflows.model.BatchFigures.HISTORY_ROWS_APPENDED;
import static io.mongocdc.workflows.model.BatchFigures.HISTORY_ROWS_PRUNED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_BY_TABLE;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_EXCLUDED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_QUARANTINED;
import static io.mongocdc.workflows.model.BatchFigures.TABLES;

import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.ports.ConnectionWaitLog;
import io.mongocdc.ports.FailedAttemptLog;
import io.mongocdc.ports.OplogSpanLog;
import io.mongocdc.workflows.PullRecordsActivity;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.MongoCredential;
import com.mongodb.MongoSecurityException;
import io.mongocdc.source.ChangeStreamException;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.scripted.Gate;
import io.mongocdc.source.scripted.ManualClock;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.workflows.FailureTypes;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.TableFigures;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.PullRecordsRequest;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestActivityEnvironment;
import io.temporal.testing.TestEnvironmentOptions;
import io.mongocdc.wiring.WorkerWiring;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PullRecordsActivityImplTest {

  private static final Duration WAIT = Duration.ofSeconds(5);

  private final ManualClock clock = new ManualClock();
  private final InMemoryDestination destination = new InMemoryDestination();
  private final List<PullHeartbeat> heartbeats = new CopyOnWriteArrayList<>();
  private TestActivityEnvironment env;
  private ScriptedChangeStream stream;

  @BeforeEach
  void setUp() {
    // The worker's own factory options: what the activity throws is classified as in production.
    env = TestActivityEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkerFactoryOptions(WorkerWiring.factoryOptions()).build());
    env.setActivityHeartbeatListener(PullHeartbeat.class, heartbeats::add);
  }

  @AfterEach
  void tearDown() {
    env.close();
  }

  private final InMemoryCatalog catalog = new InMemoryCatalog();
  private final InMemorySnapshotCatalog snapshots = new InMemorySnapshotCatalog();
  private FailedAttemptLog attempts = FailedAttemptLog.NONE;

  private PullRecordsActivity activity(List<RawBsonDocument> events) {
    return activity(ScriptedChangeStream.builder().events(events), 10);
  }

  /** @param commitIntervalRecords 0: the sink commits only for visibility and at the batch end */
  private PullRecordsActivity activity(ScriptedChangeStream.Builder script, int commitIntervalRecords) {
    stream = script.clock(clock, Duration.ofSeconds(1)).build();
    PullTuning tuning = PullTuning.defaults().withProgressInterval(Duration.ofMillis(20)).withCommitInterval(commitIntervalRecords, 0)
        .withShutdownTimeout(Duration.ofSeconds(10));
    env.registerActivitiesImplementations(new PullRecordsActivityImpl(
        new ScriptedSource(stream, Fixtures.BEFORE_EVENTS, Fixtures.peers()), destination, tuning, clock,
        new io.mongocdc.metrics.PipelineMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
            java.time.Clock.systemUTC(), null),
        attempts, catalog::setAside, catalog::recordVisibleThrough, ConnectionWaitLog.NONE, OplogSpanLog.NONE, new MirrorRedactions(null, catalog),
        snapshots));
    // A short heartbeat timeout makes the SDK send heartbeats often enough to observe them.
    return env.newActivityStub(PullRecordsActivity.class, ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(1))
        .setHeartbeatTimeout(Duration.ofMillis(500))
        .build());
  }

  private static PullRecordsRequest batch(MirrorConfig mirror, Checkpoint start) {
    return new PullRecordsRequest(mirror, 1, start);
  }

  private static Checkpoint start() {
    return Checkpoints.of(Fixtures.AFTER_START);
  }

  /** Refuses the record of order 7, as a destination refuses a key too long for its index. */
  private static final io.mongocdc.pipeline.RecordScreen REFUSES_ORDER_7 =
      record -> record.key().equals("7") ? "scripted: too long for the index" : null;

  @Test
  void aPoisonEventUnderFailPolicyFailsTheBatchNotRetryablyNamingTheEvent() {
    destination.screenWith(REFUSES_ORDER_7);
    List<RawBsonDocument> events = Fixtures.orderEvents(20);
    PullRecordsActivity activity = activity(events);

    io.temporal.failure.ActivityFailure failure = org.junit.jupiter.api.Assertions.assertThrows(
        io.temporal.failure.ActivityFailure.class, () -> activity.pullRecords(batch(Fixtures.orders(), start())));

    io.temporal.failure.ApplicationFailure cause = (io.temporal.failure.ApplicationFailure) failure.getCause();
    assertEquals(io.mongocdc.workflows.FailureTypes.POISON_EVENT, cause.getType());
    assertTrue(cause.isNonRetryable());
    String message = cause.getOriginalMessage();
    assertTrue(message.contains(tokenOfOrder(events, 7).data()) && message.contains("shop.orders")
        && message.contains("with _id 7") && message.contains("poisonEventPolicy"), message);
    assertEquals(List.of(), catalog.quarantined());
  }

  @Test
  void aPoisonEventUnderQuarantinePolicyIsKeptInTheCatalogAndCounted() {
    destination.screenWith(REFUSES_ORDER_7);
    MirrorConfig mirror = Fixtures.orders(Fixtures.smallSettings().apply(
        io.mongocdc.workflows.model.EditRequest.fromJson(Map.of("poisonEventPolicy", "QUARANTINE"))));

    List<RawBsonDocument> events = Fixtures.orderEvents(20);
    BatchOutcome outcome = activity(events).pullRecords(batch(mirror, start()));

    assertEquals(1, outcome.figures().get(RECORDS_QUARANTINED));
    assertEquals(19, outcome.figures().get(RECORDS_DELIVERED));
    assertEquals(Checkpoints.of(io.mongocdc.source.StreamPosition.after(stream.tokenOf(19))), outcome.checkpoint());
    assertEquals(1, catalog.quarantined().size());
    assertEquals(tokenOfOrder(events, 7), catalog.quarantined().get(0).position());
    assertEquals("7", catalog.quarantined().get(0).key());
    assertEquals(19, destination.recordsApplied());
  }

  private static io.mongocdc.source.ResumeToken tokenOfOrder(List<RawBsonDocument> events, int id) {
    return events.stream()
        .filter(e -> e.getDocument("documentKey").getInt32("_id").getValue() == id)
        .map(io.mongocdc.source.ResumeToken::ofEvent)
        .findFirst().orElseThrow();
  }

  @Test
  void returnsTheDeliveredCheckpointAndFigures() {
    List<RawBsonDocument> events = Fixtures.orderEvents(40);
    BatchOutcome outcome = activity(events).pullRecords(batch(Fixtures.orders(), start()));

    assertEquals(Checkpoints.of(io.mongocdc.source.StreamPosition.after(stream.tokenOf(39))), outcome.checkpoint());
    assertEquals(40, outcome.figures().get(EVENTS_READ));
    assertEquals(40, outcome.figures().get(RECORDS_DELIVERED));
    assertEquals(0, outcome.figures().get(RECORDS_EXCLUDED));
    assertEquals(40L, outcome.figures().get(RECORDS_BY_TABLE).get("public.orders"));
    assertEquals("IDLE_TIMEOUT", outcome.figures().get(END_REASON));
    assertEquals(1, outcome.figures().get(ATTEMPTS));
    assertEquals(40, destination.recordsApplied());
    assertEquals(0, stream.openCursorCount());
  }

  /**
   * After a copy of orders (finished now), a batch streams from where it started: the changes it
   * replays are applied, but the copy made them visible already, so they are not measured as lag
   * (issue 47, finding 11: p99 741 s after a resync).
   */
  @Test
  void aBatchAfterACopyLeavesTheChangesItReplaysOutOfItsFreshness() {
    MirrorConfig mirror = Fixtures.orders();
    snapshots.storePlan(mirror.name(), "orders", Checkpoints.toPosition(start()), "{}", 40, List.of("whole"));
    snapshots.partitionDone(mirror.name(), "orders", 0, 40, 4_000);
    // Events of 2023: every one was made before the copy finished.
    BatchOutcome outcome = activity(Fixtures.orderEvents(40)).pullRecords(batch(mirror, start()));

    assertEquals(40, outcome.figures().get(RECORDS_DELIVERED), "the replays are applied all the same");
    assertEquals(40, destination.recordsApplied());
    assertNull(outcome.figures().get(FRESHNESS), "no change of the batch was made after the copy");
  }

  @Test
  void heartbeatsTheDeliveredCheckpointAndCountsWhileTheBatchRuns() throws Exception {
    List<RawBsonDocument> events = Fixtures.orderEvents(40);
    PullRecordsActivity activity = activity(events);
    // Chunks of 8, a commit once 10 records are staged: the commit after chunk 8-15 covers 16
    // records; chunk 16-23 waits for the next one; event 30 blocks the reader.
    Gate gate = stream.blockAt(30);
    CountDownLatch progressed = new CountDownLatch(1);
    env.setActivityHeartbeatListener(PullHeartbeat.class, details -> {
      heartbeats.add(details);
      if (details.figures().get(RECORDS_DELIVERED) == 16) {
        progressed.countDown();
      }
    });
    CompletableFuture<BatchOutcome> pull = CompletableFuture.supplyAsync(() -> activity.pullRecords(batch(Fixtures.orders(), start())));
    assertTrue(gate.awaitReached(WAIT));
    assertTrue(progressed.await(WAIT.toSeconds(), TimeUnit.SECONDS), () -> "a heartbeat reported 16 delivered records: " + heartbeats);
    PullHeartbeat beat = heartbeats.stream().filter(h -> h.figures().get(RECORDS_DELIVERED) == 16).findFirst().orElseThrow();
    assertEquals(Checkpoints.of(io.mongocdc.source.StreamPosition.after(stream.tokenOf(15))), beat.delivered());
    assertEquals(1, beat.batchId());
    assertEquals(30, beat.figures().get(EVENTS_READ));
    long newestCommitted = events.get(15).getDateTime("wallTime").getValue();
    assertEquals(newestCommitted, beat.visibleThroughMillis(), "the heartbeat says how far the visible rows reach");
    for (PullHeartbeat earlier : heartbeats) {
      assertTrue(earlier.figures().get(RECORDS_DELIVERED) <= 16, "never ahead of what the destination committed: " + earlier);
      assertTrue(earlier.visibleThroughMillis() == null || earlier.visibleThroughMillis() <= newestCommitted,
          "never ahead of what is visible: " + earlier);
    }
    gate.release();
    assertEquals(40, pull.get(WAIT.toSeconds(), TimeUnit.SECONDS).figures().get(RECORDS_DELIVERED));
    java.time.Instant recorded = catalog.visibleThrough(Fixtures.orders().name());
    assertNotNull(recorded, "the running batch recorded how far the visible rows reach in the catalog");
    assertTrue(recorded.toEpochMilli() >= newestCommitted, recorded + " is behind a heartbeat's " + newestCommitted);
  }

  /**
   * Issue 47, finding 11: a worker killed during a batch cannot record that its attempt failed, so
   * the attempt is recorded as it starts, and completed when it ends.
   */
  @Test
  void anAttemptIsRecordedWhenItStartsSoAWorkerKilledMidBatchLeavesItsTrace() throws Exception {
    List<String> recorded = new CopyOnWriteArrayList<>();
    attempts = new FailedAttemptLog() {
      @Override
      public void started(String mirror, long batchId, int attempt) {
        recorded.add("started " + mirror + " " + batchId + " " + attempt);
      }

      @Override
      public void ended(String mirror, long batchId, int attempt) {
        recorded.add("ended " + mirror + " " + batchId + " " + attempt);
      }

      @Override
      public void record(String mirror, long batchId, int attempt, String failureType, String message) {
        recorded.add("failed " + mirror + " " + batchId + " " + attempt);
      }
    };
    PullRecordsActivity activity = activity(Fixtures.orderEvents(40));
    Gate gate = stream.blockAt(20);
    CompletableFuture<BatchOutcome> pull = CompletableFuture.supplyAsync(() -> activity.pullRecords(batch(Fixtures.orders(), start())));
    assertTrue(gate.awaitReached(WAIT));
    String name = Fixtures.orders().name();
    assertEquals(List.of("started " + name + " 1 1"), recorded, "killed now, the attempt has left its row");
    gate.release();
    assertEquals(40, pull.get(WAIT.toSeconds(), TimeUnit.SECONDS).figures().get(RECORDS_DELIVERED));
    assertEquals(List.of("started " + name + " 1 1", "ended " + name + " 1 1"), recorded);
  }

  @Test
  void cancellationNoticedThroughTheHeartbeatStopsThePullPromptly() throws Exception {
    PullRecordsActivity activity = activity(Fixtures.orderEvents(40));
    Gate gate = stream.blockAt(20);
    CompletableFuture<BatchOutcome> pull = CompletableFuture.supplyAsync(() -> activity.pullRecords(batch(Fixtures.orders(), start())));
    assertTrue(gate.awaitReached(WAIT));
    env.requestCancelActivity();

    ExecutionException failure = assertThrows(ExecutionException.class, () -> pull.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertTrue(hasCause(failure, CanceledFailure.class) || hasCause(failure, io.temporal.client.ActivityCanceledException.class),
        () -> "cancelled, got " + failure.getCause());
    assertEquals(0, stream.openCursorCount());
    assertEquals(16, destination.recordsApplied(), "the commit before the cancellation stays; nothing after it");
  }

  @Test
  void historyRowsAndPruningAreReportedAndAFailedPruneNeverFailsTheBatch() {
    MirrorConfig mirror = Fixtures.orders(Fixtures.smallSettings().withHistory(
        new io.mongocdc.workflows.model.ChangeHistorySettings(null, List.of("orders"), 7)));
    PullRecordsActivity activity = activity(Fixtures.orderEvents(10));
    destination.pruneWith(() -> 5);

    BatchOutcome pruned = activity.pullRecords(batch(mirror, start()));
    destination.pruneWith(() -> {
      throw new IllegalStateException("destination went away");
    });
    BatchOutcome failedPrune = activity.pullRecords(new PullRecordsRequest(mirror, 2, pruned.checkpoint()));

    assertEquals(10, pruned.figures().get(HISTORY_ROWS_APPENDED));
    assertEquals(5, pruned.figures().get(HISTORY_ROWS_PRUNED));
    assertEquals(0, failedPrune.figures().get(HISTORY_ROWS_PRUNED));
    assertEquals(10, destination.recordsApplied());
  }

  @Test
  void aRetryResumesFromTheLastHeartbeatCheckpoint() {
    List<RawBsonDocument> events = Fixtures.orderEvents(40);
    PullRecordsActivity activity = activity(events);
    Checkpoint heartbeated = Checkpoints.of(io.mongocdc.source.StreamPosition.after(stream.tokenOf(19)));
    env.setHeartbeatDetails(new PullHeartbeat(1, heartbeated, 1, BatchFigures.none().with(EVENTS_READ, 20)
        .with(RECORDS_DELIVERED, 20).with(TABLES, Map.of("public.orders", new TableFigures("shop.orders", 20, 0, 0, 0, 2000)))
        .with(FIRST_POSITION, "00AA"), null, null));

    BatchOutcome outcome = activity.pullRecords(batch(Fixtures.orders(), start()));

    assertEquals(List.of(Checkpoints.toPosition(heartbeated)), stream.openedPositions());
    assertEquals(20, outcome.figures().get(EVENTS_READ));
    assertEquals(40, outcome.figures().get(RECORDS_DELIVERED), "the earlier attempt's 20 plus this one's 20");
    assertEquals(40, outcome.figures().get(TABLES).get("public.orders").records(),
        "the per-table counts add the earlier attempt's too");
    assertEquals("00AA", outcome.figures().get(FIRST_POSITION), "the batch's first record was the earlier attempt's");
    assertEquals(20, destination.recordsApplied());
  }

  @Test
  void aFailureBetweenTwoVisibilityCommitsLosesNothingAndTheRetryReplaysOnlyTheUncommittedTail() throws Exception {
    List<RawBsonDocument> events = Fixtures.orderEvents(30);
    // The source pauses after events 9 and 19: the reader catches up and the sink commits each
    // time (no size interval). Events 20-27 fill a chunk that is on its way to the sink, not
    // committed (the visibility delay is a minute), when reading event 28 fails.
    PullRecordsActivity activity = activity(ScriptedChangeStream.builder()
        .events(events.subList(0, 10)).idle().events(events.subList(10, 20)).idle().events(events.subList(20, 30)), 0);
    // The reader waits at event 28 until the two visibility commits are done, then fails there.
    Gate beforeFailure = stream.blockAt(28);
    stream.failAt(28, new ChangeStreamException("Prematurely reached end of stream", 0, true, null));
    MirrorConfig mirror = Fixtures.orders(Fixtures.smallSettings().with(MirrorSettings.MAX_VISIBILITY_DELAY, 60_000));

    CompletableFuture<BatchOutcome> failing = CompletableFuture.supplyAsync(() -> activity.pullRecords(batch(mirror, start())));
    assertTrue(beforeFailure.awaitReached(WAIT));
    destination.awaitCommitted(20, WAIT);
    // The heartbeat of the second commit follows it on the pull's progress report: the failure waits
    // for it, or it would race the report (a retry from the older heartbeat only replays more).
    Checkpoint afterVisibilityCommits = Checkpoints.of(io.mongocdc.source.StreamPosition.after(stream.tokenOf(19)));
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (heartbeats.stream().noneMatch(h -> afterVisibilityCommits.equals(h.delivered()))) {
      assertTrue(System.nanoTime() < deadline, () -> "no heartbeat reported the second commit: " + heartbeats);
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
    }
    beforeFailure.release();
    ExecutionException failed = assertThrows(ExecutionException.class, () -> failing.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertInstanceOf(ActivityFailure.class, failed.getCause());

    PullHeartbeat last = heartbeats.get(heartbeats.size() - 1);
    assertEquals(afterVisibilityCommits, last.delivered(), "the failed attempt heartbeated its last visibility commit");
    assertEquals(20, destination.recordsCommitted(), "events 0-19 are committed, the tail 20-27 is not");
    env.setHeartbeatDetails(last);

    BatchOutcome retried = activity.pullRecords(batch(mirror, start()));

    assertEquals(Checkpoints.toPosition(afterVisibilityCommits), stream.openedPositions().get(1),
        "the retry resumes from the heartbeated checkpoint");
    assertEquals(10, retried.figures().get(EVENTS_READ), "the retry reads only the uncommitted tail and what followed");
    assertEquals(30, retried.figures().get(RECORDS_DELIVERED), "both attempts' records, each counted once");
    assertEquals(30, destination.recordsCommitted(), "no record was committed twice, none was lost");
    assertNotNull(retried.figures().get(FRESHNESS), "the batch reports its freshness");
  }

  @Test
  void aHeartbeatOfAnotherBatchOrOlderThanTheStartIsIgnored() {
    List<RawBsonDocument> events = Fixtures.orderEvents(10);
    PullRecordsActivity activity = activity(events);
    env.setHeartbeatDetails(new PullHeartbeat(7, Checkpoints.of(io.mongocdc.source.StreamPosition.after(stream.tokenOf(5))),
        1, BatchFigures.none().with(EVENTS_READ, 6).with(RECORDS_DELIVERED, 6), null, null));

    BatchOutcome outcome = activity.pullRecords(batch(Fixtures.orders(), start()));

    assertEquals(List.of(Checkpoints.toPosition(start())), stream.openedPositions());
    assertEquals(10, outcome.figures().get(RECORDS_DELIVERED));
  }

  /** Ten order inserts, with a createIndexes after the third and two events of an invented type after the sixth. */
  private static List<RawBsonDocument> orderEventsWithUnknownTypes() {
    io.mongocdc.source.scripted.ChangeEvents events = new io.mongocdc.source.scripted.ChangeEvents();
    List<RawBsonDocument> out = new java.util.ArrayList<>();
    for (int id = 0; id < 10; id++) {
      if (id == 3) {
        out.add(events.ofType("createIndexes", Fixtures.ORDERS));
      } else if (id == 6) {
        out.add(events.ofType("futureOp", Fixtures.ORDERS));
        out.add(events.ofType("futureOp", Fixtures.ORDERS));
      }
      out.add(events.insert(Fixtures.ORDERS, new org.bson.BsonDocument("_id", new org.bson.BsonInt32(id))));
    }
    return out;
  }

  @Test
  void eventsOfUnknownTypesArePassedOverUnderSkipAndCountedPerType() {
    List<RawBsonDocument> events = orderEventsWithUnknownTypes();
    MirrorConfig mirror = Fixtures.orders(Fixtures.smallSettings().with(MirrorSettings.UNKNOWN_EVENT_POLICY,
        io.mongocdc.workflows.model.UnknownEventPolicy.SKIP));

    BatchOutcome outcome = activity(events).pullRecords(batch(mirror, start()));

    assertEquals(Map.of("createIndexes", 1L, "futureOp", 2L), outcome.figures().get(EVENTS_SKIPPED));
    assertEquals(13, outcome.figures().get(EVENTS_READ));
    assertEquals(10, outcome.figures().get(RECORDS_DELIVERED), "every data change is applied");
    assertEquals(10, destination.recordsApplied());
    assertEquals(Checkpoints.of(io.mongocdc.source.StreamPosition.after(stream.tokenOf(12))), outcome.checkpoint(),
        "the checkpoint passes over them");
  }

  @Test
  void anEventOfAnUnknownTypeUnderFailStopsTheBatchNamingItAndTheWayOut() {
    List<RawBsonDocument> events = orderEventsWithUnknownTypes();
    PullRecordsActivity activity = activity(events);

    ActivityFailure failure = assertThrows(ActivityFailure.class,
        () -> activity.pullRecords(batch(Fixtures.orders(), start())));

    io.temporal.failure.ApplicationFailure cause = (io.temporal.failure.ApplicationFailure) failure.getCause();
    assertTrue(cause.isNonRetryable());
    String message = cause.getOriginalMessage();
    // The pull fails as soon as any chunk fails to decode: the error names one of the unknown events.
    assertTrue(message.contains("unknown operationType 'createIndexes' on shop.orders")
        && message.contains(stream.tokenOf(3).data())
        || message.contains("unknown operationType 'futureOp' on shop.orders")
        && (message.contains(stream.tokenOf(7).data()) || message.contains(stream.tokenOf(8).data())), message);
    assertTrue(message.contains("unknownEventPolicy"), message);
    assertTrue(destination.recordsCommitted() <= 3, "nothing after it is delivered: " + destination.recordsCommitted());
  }

  @Test
  void anExcludedTypeIsPassedOverUnderFailAndARetryCountsEachEventOnce() {
    List<RawBsonDocument> events = orderEventsWithUnknownTypes();
    PullRecordsActivity activity = activity(events);
    MirrorConfig mirror = Fixtures.orders(Fixtures.smallSettings().with(MirrorSettings.EXCLUDED_OPERATIONS,
        List.of("createIndexes", "futureOp")));
    // An earlier attempt delivered up to the first futureOp and heartbeated it.
    env.setHeartbeatDetails(new PullHeartbeat(1, Checkpoints.of(io.mongocdc.source.StreamPosition.after(stream.tokenOf(7))),
        1, BatchFigures.none().with(EVENTS_READ, 8).with(RECORDS_DELIVERED, 6)
            .with(EVENTS_SKIPPED, Map.of("createIndexes", 1L, "futureOp", 1L)), null, null));

    BatchOutcome outcome = activity.pullRecords(batch(mirror, start()));

    assertEquals(Map.of("createIndexes", 1L, "futureOp", 2L), outcome.figures().get(EVENTS_SKIPPED));
    assertEquals(10, outcome.figures().get(RECORDS_DELIVERED));
    assertEquals(Checkpoints.of(io.mongocdc.source.StreamPosition.after(stream.tokenOf(12))), outcome.checkpoint());
  }

  @Test
  void excludedOperationsAreNotAppliedButTheCheckpointPassesThem() {
    List<RawBsonDocument> events = Fixtures.orderEvents(20);
    MirrorSettings settings = Fixtures.smallSettings();
    MirrorConfig mirror = Fixtures.orders(settings.with(MirrorSettings.EXCLUDED_OPERATIONS, List.of("delete")));

    BatchOutcome outcome = activity(events).pullRecords(batch(mirror, start()));

    long deletes = events.stream().filter(e -> e.getString("operationType").getValue().equals("delete")).count();
    assertTrue(deletes > 0);
    assertEquals(deletes, outcome.figures().get(RECORDS_EXCLUDED));
    assertEquals(20 - deletes, outcome.figures().get(RECORDS_DELIVERED));
    assertEquals(20 - deletes, destination.recordsApplied());
    assertEquals(Checkpoints.of(io.mongocdc.source.StreamPosition.after(stream.tokenOf(19))), outcome.checkpoint());
  }

  @Test
  void historyLostIsNotRetryableAndTellsTheOperatorToResync() {
    PullRecordsActivity activity = activity(Fixtures.orderEvents(10));
    stream.failAt(3, new ChangeStreamHistoryLostException("ChangeStreamHistoryLost: resume point no longer in the oplog", 286, null));

    ApplicationFailure failure = applicationFailure(() -> activity.pullRecords(batch(Fixtures.orders(), start())));

    assertEquals(FailureTypes.HISTORY_LOST, failure.getType());
    assertTrue(failure.isNonRetryable());
    assertTrue(failure.getOriginalMessage().contains("resynchronised"), failure.getOriginalMessage());
  }

  @Test
  void aNetworkErrorIsRetryable() {
    PullRecordsActivity activity = activity(Fixtures.orderEvents(10));
    stream.failAt(3, new ChangeStreamException("Prematurely reached end of stream", 0, true, null));

    ApplicationFailure failure = applicationFailure(() -> activity.pullRecords(batch(Fixtures.orders(), start())));

    assertEquals(FailureTypes.TRANSIENT, failure.getType());
    assertFalse(failure.isNonRetryable());
  }

  @Test
  void anAuthenticationFailureIsNotRetryableAndNeverQuotesThePassword() {
    PullRecordsActivity activity = activity(Fixtures.orderEvents(10));
    stream.failAt(0, new MongoSecurityException(
        MongoCredential.createCredential("cdc", "admin", Fixtures.SOURCE_PASSWORD.toCharArray()),
        "Exception authenticating to " + Fixtures.SOURCE_URI));

    ApplicationFailure failure = applicationFailure(() -> activity.pullRecords(batch(Fixtures.orders(), start())));

    assertEquals(FailureTypes.AUTHENTICATION_FAILED, failure.getType());
    assertTrue(failure.isNonRetryable());
    assertFalse(failure.getOriginalMessage().contains(Fixtures.SOURCE_PASSWORD), failure.getOriginalMessage());
    assertTrue(failure.getOriginalMessage().contains("cdc:***@db1.example"), failure.getOriginalMessage());
  }

  @Test
  void anUnknownPeerIsAnInvalidConfiguration() {
    PullRecordsActivity activity = activity(Fixtures.orderEvents(10));
    MirrorConfig mirror = new MirrorConfig("orders", "nobody", "warehouse-pg", "shop", List.of("orders"), "public",
        Fixtures.smallSettings());

    ApplicationFailure failure = applicationFailure(() -> activity.pullRecords(batch(mirror, start())));

    assertEquals(FailureTypes.INVALID_CONFIGURATION, failure.getType());
    assertTrue(failure.getOriginalMessage().contains("unknown peer 'nobody'"), failure.getOriginalMessage());
  }

  private static ApplicationFailure applicationFailure(Runnable call) {
    ActivityFailure failure = assertThrows(ActivityFailure.class, call::run);
    ApplicationFailure application = assertInstanceOf(ApplicationFailure.class, failure.getCause());
    assertNotNull(application.getType());
    return application;
  }

  private static boolean hasCause(Throwable failure, Class<? extends Throwable> type) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
