package io.mongocdc.catalog;

import static io.mongocdc.workflows.model.BatchFigures.ATTEMPTS;
import static io.mongocdc.workflows.model.BatchFigures.BYTES_READ;
import static io.mongocdc.workflows.model.BatchFigures.DURATION_MILLIS;
import static io.mongocdc.workflows.model.BatchFigures.END_REASON;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_READ;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_SKIPPED;
import static io.mongocdc.workflows.model.BatchFigures.FIRST_POSITION;
import static io.mongocdc.workflows.model.BatchFigures.FRESHNESS;
import static io.mongocdc.workflows.model.BatchFigures.HISTORY_ROWS_APPENDED;
import static io.mongocdc.workflows.model.BatchFigures.HISTORY_ROWS_PRUNED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_BY_TABLE;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static io.mongocdc.workflows.model.BatchFigures.TABLES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.CheckpointCommit;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRules;
import io.mongocdc.workflows.model.FieldRulesWritten;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.TableFigures;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The activities' catalog port on the real catalog: registration, monotonic commits, the states
 * workflows record, batch figures and failed attempts, forget.
 */
class PostgresCheckpointCatalogTest {

  private static Catalog catalog;
  private static PostgresCheckpointCatalog port;

  @BeforeAll
  static void open() {
    catalog = Catalog.open(EmbeddedPostgresSupport.newCatalogDatabase("port"));
    port = new PostgresCheckpointCatalog(catalog);
  }

  private static MirrorConfig mirror(String name) {
    return new MirrorConfig(name, "orders-mongo", "warehouse-pg", "shop", List.of("orders"), "public",
        MirrorSettings.defaults());
  }

  private static StreamPosition token(long n) {
    return StreamPosition.after(ResumeToken.of(String.format("82%08X%08X2B0404", 1_000_000 + n, 1)));
  }

  private static BatchFigures figures(long records, String endReason) {
    return BatchFigures.zero().with(EVENTS_READ, records).with(RECORDS_DELIVERED, records)
        .with(BYTES_READ, records * 100)
        .with(RECORDS_BY_TABLE, Map.of("public.orders", records)).with(DURATION_MILLIS, 250)
        .with(END_REASON, endReason).with(ATTEMPTS, 1);
  }

  private static MirrorStateChange state(String mirror, MirrorPhase phase, long atMillis, long sequence) {
    return new MirrorStateChange(mirror, phase, phase == MirrorPhase.PAUSED ? "paused by the operator" : null,
        null, null, 0, atMillis, sequence, mirror(mirror), null, null);
  }

  private static Object column(String sql) {
    return catalog.dsl().fetchValue(sql);
  }

  @Test
  void commitsMonotonicallyAndKeepsOneBatchRowPerBatch() {
    assertTrue(port.register(mirror("m1")).isEmpty());
    CheckpointCommit first = port.commit("m1", 1, token(10), figures(5, "BATCH_SIZE"));
    CheckpointCommit second = port.commit("m1", 2, token(20), figures(7, "IDLE_TIMEOUT"));
    CheckpointCommit stale = port.commit("m1", 1, token(10), figures(5, "BATCH_SIZE"));

    assertTrue(first.advanced());
    assertTrue(second.advanced());
    assertFalse(stale.advanced(), "a replayed commit of an older batch never moves the checkpoint back");
    assertEquals(token(20), port.committed("m1").orElseThrow());
    assertEquals(token(20), port.register(mirror("m1")).orElseThrow(), "registering again returns the checkpoint");
    assertEquals(2, catalog.batches().recent("m1", 10).size());
    assertEquals(2, port.committedBatchId("m1"), "the batch that committed the stored checkpoint");
    assertEquals(0, port.committedBatchId("nobody"));
    assertEquals("running", catalog.mirror("m1").orElseThrow().getStatus());
  }

  /**
   * What the rows hold under field rules (issue 47, finding 7): written with a state that carries
   * it, kept by one that does not (a workflow not set up yet: a mirror created again), moved on by
   * a rewrite's slices and dropped once done.
   */
  @Test
  void whatTheRowsHoldUnderFieldRulesIsKeptAcrossStatesWithoutItAndMovedOnByRewrites() {
    port.register(mirror("fr"));
    assertTrue(port.fieldRulesWritten("fr").isEmpty(), "nothing recorded yet");
    FieldRuleSettings hashed = new FieldRuleSettings(Map.of("orders", new FieldRules(List.of(), List.of("email"))));
    Checkpoint stored = Checkpoint.afterToken("8265F3A1800000000A2B042C0100296E5A1004AB", 1_796_083_200L, 10);
    FieldRuleRewrite past = FieldRuleRewrite.pastCheckpoint(hashed, stored);
    FieldRuleRewrite upTo = FieldRuleRewrite.of(hashed, stored);
    FieldRulesWritten written = new FieldRulesWritten(hashed, List.of(past, upTo), Map.of("orders", List.of("email")));
    port.recordState(new MirrorStateChange("fr", MirrorPhase.RUNNING, null, null, null, 0, 1_000, 1, mirror("fr"),
        null, written));
    port.recordState(state("fr", MirrorPhase.SETTING_UP, 2_000, 1));
    assertEquals(written, port.fieldRulesWritten("fr").orElseThrow(), "a state without it keeps it");

    FieldRuleRewrite moved = past.at("orders", FieldRuleRewrite.TABLE, null, "k", 5);
    port.recordFieldRuleRewriteProgress("fr", moved);
    assertEquals(List.of(moved, upTo), port.fieldRulesWritten("fr").orElseThrow().rewrites());
    port.recordFieldRuleRewriteProgress("fr", moved.finished(9));
    assertEquals(List.of(upTo), port.fieldRulesWritten("fr").orElseThrow().rewrites());
    port.recordFieldRuleRewriteProgress("nobody", moved);
    assertTrue(port.fieldRulesWritten("nobody").isEmpty());
  }

  @Test
  void theStartOfTheMirrorsStreamIsRecordedAndAStateWithoutOneKeepsIt() {
    port.register(mirror("st"));
    String token = "8265F3A1800000000A2B042C0100296E5A1004AB";
    port.recordState(new MirrorStateChange("st", MirrorPhase.RUNNING, null, null, null, 0, 1_000, 1, mirror("st"),
        Checkpoint.afterToken(token, 1_796_083_200L, 10), null));
    port.recordState(state("st", MirrorPhase.PAUSED, 2_000, 2));

    var row = catalog.mirror("st").orElseThrow();
    assertEquals(token, row.getStartResumeToken());
    assertEquals(1_796_083_200L << 32 | 10, row.getStartClusterTime());
    assertEquals(java.time.Instant.parse("2026-12-01T00:00:00Z"), row.getStartClusterTimeAt().toInstant());
    assertEquals("paused", row.getStatus());
  }

  @Test
  void aBatchStoppedByAControlEventMarksAMirrorWhoseWorkflowRecordsNoStatesPaused() {
    port.register(mirror("m2"));
    port.commit("m2", 1, token(30), figures(3, "CONTROL_EVENT"));

    assertEquals("paused", catalog.mirror("m2").orElseThrow().getStatus());
    assertTrue(catalog.mirror("m2").orElseThrow().getStatusReason().contains("control event policy PAUSE"));
  }

  @Test
  void theNewestRecordedStateWinsWhateverOrderTheWritesArriveIn() {
    port.register(mirror("s1"));
    assertEquals("setting_up", catalog.mirror("s1").orElseThrow().getStatus(), "a new mirror is being set up");

    assertTrue(port.recordState(state("s1", MirrorPhase.RUNNING, 1_000, 2)));
    assertTrue(port.recordState(state("s1", MirrorPhase.PAUSED, 2_000, 3)));
    assertFalse(port.recordState(state("s1", MirrorPhase.RUNNING, 1_000, 2)), "a late retry of an older change");
    assertFalse(port.recordState(state("s1", MirrorPhase.RUNNING, 2_000, 1)), "as late, but earlier in the count");
    assertFalse(port.recordState(state("s1", MirrorPhase.PAUSED, 2_000, 3)), "the same change again");
    assertEquals("paused", catalog.mirror("s1").orElseThrow().getStatus());
    assertEquals("paused by the operator", catalog.mirror("s1").orElseThrow().getStatusReason());

    port.commit("s1", 1, token(50), figures(2, "BATCH_SIZE"));
    assertEquals("paused", catalog.mirror("s1").orElseThrow().getStatus(),
        "a commit leaves the state of a mirror whose workflow records it alone");
    assertTrue(port.recordState(state("s1", MirrorPhase.RUNNING, 2_000, 4)), "as late and later in the count");
    assertEquals("running", catalog.mirror("s1").orElseThrow().getStatus());
    assertFalse(port.recordState(state("nobody", MirrorPhase.RUNNING, 3_000, 1)), "not registered yet");
  }

  @Test
  void aFailingStateKeepsTheErrorItsTypeAndAttemptsAndRunningClearsAllButTheError() {
    port.register(mirror("s2"));
    port.recordState(new MirrorStateChange("s2", MirrorPhase.BACKING_OFF, null, "PullRecords: [TRANSIENT] boom",
        "TRANSIENT", 3, 5_000, 1, mirror("s2"), null, null));
    var failing = catalog.mirror("s2").orElseThrow();
    assertEquals("backing_off", failing.getStatus());
    assertEquals("PullRecords: [TRANSIENT] boom", failing.getLastError());
    assertEquals("TRANSIENT", failing.getFailureType());
    assertEquals(3, failing.getFailedAttempts());
    assertEquals(5_000, failing.getLastErrorAt().toInstant().toEpochMilli(), "the workflow's time of the failure");

    port.recordState(state("s2", MirrorPhase.RUNNING, 6_000, 2));
    var running = catalog.mirror("s2").orElseThrow();
    assertEquals("running", running.getStatus());
    assertEquals(null, running.getFailureType());
    assertEquals(null, running.getFailedAttempts());
    assertEquals("PullRecords: [TRANSIENT] boom", running.getLastError(), "the last error stays for the record");
  }

  @Test
  void anEditedConfigurationReplacesTheStoredOneAndSaysWhen() {
    port.register(mirror("s3"));
    port.recordState(state("s3", MirrorPhase.RUNNING, 7_000, 1));
    long unchanged = catalog.mirror("s3").orElseThrow().getConfigUpdatedAt().toInstant().toEpochMilli();
    MirrorConfig edited = mirror("s3").withSettings(mirror("s3").settings().apply(
        io.mongocdc.workflows.model.EditRequest.fromJson(Map.of("batchSize", 1234))));

    port.recordState(new MirrorStateChange("s3", MirrorPhase.RUNNING, null, null, null, 0, 8_000, 2, edited, null, null));

    var row = catalog.mirror("s3").orElseThrow();
    assertTrue(row.getConfig().data().contains("\"batchSize\":1234") || row.getConfig().data().contains("\"batchSize\": 1234"),
        row.getConfig().data());
    assertEquals(8_000, row.getConfigUpdatedAt().toInstant().toEpochMilli());
    assertTrue(unchanged != 8_000);
  }

  @Test
  void aBatchRowHoldsItsCountsByOperationAndTheTablesTheirRunningTotals() {
    port.register(mirror("f1"));
    Map<String, TableFigures> tables = Map.of(
        "public.orders", new TableFigures("shop.orders", 5, 3, 1, 1, 900),
        "public.users", new TableFigures("shop.users", 2, 0, 0, 0, 150));
    BatchFigures batch = BatchFigures.zero().with(EVENTS_READ, 12).with(RECORDS_DELIVERED, 12).with(BYTES_READ, 1200)
        .with(RECORDS_BY_TABLE, Map.of("public.orders", 10L, "public.users", 2L)).with(DURATION_MILLIS, 250)
        .with(END_REASON, "BATCH_SIZE")
        .with(ATTEMPTS, 2).with(TABLES, tables).with(FIRST_POSITION, "8200000001000000012B0404");

    port.commit("f1", 1, token(60), batch);
    port.commit("f1", 2, token(61), batch);

    assertEquals(7L, column("select inserts from mongo_cdc.batches where mirror_name = 'f1' and batch_id = 1"));
    assertEquals(3L, column("select updates from mongo_cdc.batches where mirror_name = 'f1' and batch_id = 1"));
    assertEquals(1L, column("select replaces from mongo_cdc.batches where mirror_name = 'f1' and batch_id = 1"));
    assertEquals(1L, column("select deletes from mongo_cdc.batches where mirror_name = 'f1' and batch_id = 1"));
    assertEquals(2, column("select attempts from mongo_cdc.batches where mirror_name = 'f1' and batch_id = 1"));
    assertEquals("8200000001000000012B0404",
        column("select first_position from mongo_cdc.batches where mirror_name = 'f1' and batch_id = 1"));
    assertEquals(20L, ((Number) column("select records from mongo_cdc.table_counters"
        + " where mirror_name = 'f1' and destination_table = 'public.orders'")).longValue());
    assertEquals(6L, ((Number) column("select updates from mongo_cdc.table_counters"
        + " where mirror_name = 'f1' and destination_table = 'public.orders'")).longValue());
    assertEquals("shop.users", column("select source_namespace from mongo_cdc.table_counters"
        + " where mirror_name = 'f1' and destination_table = 'public.users'"));
    assertEquals(300L, ((Number) column("select bytes from mongo_cdc.table_counters"
        + " where mirror_name = 'f1' and destination_table = 'public.users'")).longValue());
  }

  @Test
  void aBatchRowHoldsWhatItAppendedToHistoryAndWhatRetentionPruned() {
    port.register(mirror("h1"));
    BatchFigures batch = BatchFigures.zero().with(EVENTS_READ, 12).with(RECORDS_DELIVERED, 12).with(BYTES_READ, 1200)
        .with(DURATION_MILLIS, 250).with(END_REASON, "BATCH_SIZE").with(ATTEMPTS, 1).with(TABLES, Map.of())
        .with(HISTORY_ROWS_APPENDED, 12)
        .with(HISTORY_ROWS_PRUNED, 40);

    port.commit("h1", 1, token(80), batch);

    assertEquals(12L, column("select history_rows from mongo_cdc.batches where mirror_name = 'h1'"));
    assertEquals(40L, column("select history_pruned from mongo_cdc.batches where mirror_name = 'h1'"));
  }

  @Test
  void aBatchRowHoldsTheEventsItPassedOverByTypeAndNullWhenNone() {
    port.register(mirror("skips1"));
    BatchFigures skipping = BatchFigures.zero().with(EVENTS_READ, 5).with(RECORDS_DELIVERED, 2)
        .with(DURATION_MILLIS, 10)
        .with(END_REASON, "BATCH_SIZE").with(ATTEMPTS, 1).with(TABLES, Map.of())
        .with(EVENTS_SKIPPED, Map.of("futureOp", 2L, "createIndexes", 1L))
        ;

    port.commit("skips1", 1, token(90), skipping);
    port.commit("skips1", 2, token(91), figures(4, "BATCH_SIZE"));

    // jsonb's own text form: keys shortest first.
    assertEquals("{\"futureOp\": 2, \"createIndexes\": 1}", column("select events_skipped::text from mongo_cdc.batches"
        + " where mirror_name = 'skips1' and batch_id = 1"));
    assertEquals(null, column("select events_skipped from mongo_cdc.batches where mirror_name = 'skips1' and batch_id = 2"));
  }

  @Test
  void figuresFromAnOlderWorkerLeaveTheOperationCountsUnknown() {
    port.register(mirror("f2"));
    port.commit("f2", 1, token(70), figures(4, "BATCH_SIZE"));

    assertEquals(null, column("select inserts from mongo_cdc.batches where mirror_name = 'f2'"), "null, not 0");
    assertEquals(4L, column("select records from mongo_cdc.batches where mirror_name = 'f2'"));
    assertEquals(0L, ((Number) column("select count(*) from mongo_cdc.table_counters where mirror_name = 'f2'"))
        .longValue());
  }

  @Test
  void theRunningBatchsVisibleThroughMovesForwardOnlyAndMirrorStatusShowsTheNewerOfItAndTheLastBatch() {
    port.register(mirror("v1"));
    java.time.Instant early = java.time.Instant.parse("2026-12-02T10:00:00Z");
    java.time.Instant later = early.plusSeconds(30);
    assertEquals(null, column("select visible_through from mongo_cdc.mirror_status where mirror = 'v1'"));

    port.recordVisibleThrough("v1", later);
    port.recordVisibleThrough("v1", early);

    assertEquals(later, instant(column("select visible_through from mongo_cdc.mirror_status where mirror = 'v1'")),
        "a late report of an earlier time does not move it back");
    port.commit("v1", 1, token(80), BatchFigures.zero().with(EVENTS_READ, 3).with(RECORDS_DELIVERED, 3)
        .with(DURATION_MILLIS, 10)
        .with(END_REASON, "BATCH_SIZE").with(ATTEMPTS, 1).with(TABLES, Map.of())
        .with(FRESHNESS, new io.mongocdc.workflows.model.BatchFreshness(5, 9, 12, later.plusSeconds(5).toEpochMilli()))
        );
    assertEquals(later.plusSeconds(5),
        instant(column("select visible_through from mongo_cdc.mirror_status where mirror = 'v1'")),
        "a batch that ended further along wins");
    assertTrue(((Number) column("select extract(epoch from visible_lag) from mongo_cdc.mirror_status"
        + " where mirror = 'v1'")).doubleValue() > 0);
  }

  private static java.time.Instant instant(Object value) {
    return ((java.time.OffsetDateTime) value).toInstant();
  }

  @Test
  void aFailedAttemptLeavesARowAndShowsOnTheBatchUntilItCommits() {
    port.register(mirror("a1"));
    port.recordFailedAttempt("a1", 1, 1, "TRANSIENT", "PullRecords: connection refused");
    port.recordFailedAttempt("a1", 1, 2, "TRANSIENT", "PullRecords: connection refused");

    assertEquals(2L, ((Number) column("select count(*) from mongo_cdc.batch_attempts where mirror_name = 'a1'"))
        .longValue());
    assertEquals("attempt 2: [TRANSIENT] PullRecords: connection refused",
        column("select last_batch_error from mongo_cdc.mirror_status where mirror = 'a1'"));
    assertEquals(2L, ((Number) column("select failed_attempts_last_day from mongo_cdc.mirror_status"
        + " where mirror = 'a1'")).longValue());

    port.commit("a1", 1, token(80), figures(3, "BATCH_SIZE"));
    assertEquals(null, column("select last_batch_error from mongo_cdc.mirror_status where mirror = 'a1'"),
        "the batch committed: its row is the final report");
    assertEquals(3L, column("select last_batch_records from mongo_cdc.mirror_status where mirror = 'a1'"));
  }

  /**
   * Issue 47, finding 11: a {@code kill -9} during a batch left no {@code batch_attempts} row. The
   * row is written when the attempt starts; the next attempt finds it open and marks it lost.
   */
  @Test
  void anAttemptLostWithItsWorkerKeepsItsRowAndTheNextAttemptMarksItLost() {
    port.register(mirror("k1"));
    port.recordAttemptStarted("k1", 4, 1);
    // kill -9: the attempt writes nothing more.
    assertEquals(1L, ((Number) column("select count(*) from mongo_cdc.batch_attempts where mirror_name = 'k1'"
        + " and batch_id = 4 and attempt = 1 and started_at is not null and ended_at is null")).longValue(),
        "the attempt shows from its start");

    port.recordAttemptStarted("k1", 4, 2);
    assertEquals(BatchHistory.ATTEMPT_LOST, column("select failure_type from mongo_cdc.batch_attempts"
        + " where mirror_name = 'k1' and attempt = 1"));
    assertTrue(((String) column("select message from mongo_cdc.batch_attempts where mirror_name = 'k1'"
        + " and attempt = 1")).contains("found when attempt 2 of batch 4 started"));
    assertEquals(1L, ((Number) column("select failed_attempts_last_day from mongo_cdc.mirror_status"
        + " where mirror = 'k1'")).longValue());

    port.recordFailedAttempt("k1", 4, 2, "TRANSIENT", "PullRecords: connection refused");
    assertEquals(2L, ((Number) column("select count(*) from mongo_cdc.batch_attempts where mirror_name = 'k1'"))
        .longValue(), "the failure completes the attempt's row");
    assertEquals("TRANSIENT", column("select failure_type from mongo_cdc.batch_attempts where mirror_name = 'k1'"
        + " and attempt = 2 and started_at is not null and ended_at is not null"));

    port.recordAttemptStarted("k1", 4, 3);
    port.recordAttemptEnded("k1", 4, 3);
    assertEquals(null, column("select failed_at from mongo_cdc.batch_attempts where mirror_name = 'k1'"
        + " and attempt = 3 and ended_at is not null"), "an attempt that delivered did not fail");
    assertEquals(2L, ((Number) column("select failed_attempts_last_day from mongo_cdc.mirror_status"
        + " where mirror = 'k1'")).longValue());
    port.recordAttemptStarted("k1", 5, 1);
    assertEquals(2L, ((Number) column("select count(*) from mongo_cdc.batch_attempts where mirror_name = 'k1'"
        + " and failure_type is not null")).longValue(), "an attempt that ended is never taken for lost");
  }

  @Test
  void forgetRemovesEveryRowOfTheMirror() {
    port.register(mirror("m3"));
    port.commit("m3", 1, token(40), figures(1, "BATCH_SIZE"));

    port.forget("m3");

    assertTrue(port.committed("m3").isEmpty());
    assertTrue(catalog.mirror("m3").isEmpty());
    assertEquals(0, catalog.batches().recent("m3", 10).size());
  }

  /** Issue 32: a field rule rewrite of the quarantine, retried after a crash, applies its rules once. */
  @Test
  void aQuarantineRewriteHappensOncePerRewriteEvenWhenItIsRetried() {
    port.register(mirror("q32"));
    io.mongocdc.pipeline.PoisonEvent event = new io.mongocdc.pipeline.PoisonEvent(((StreamPosition.AfterToken) token(5)).token(),
        new io.mongocdc.decode.Namespace("shop", "orders"), "shop.orders", "1", io.mongocdc.decode.Operation.INSERT,
        "{\"_id\": 1, \"n\": 0}", java.time.Instant.EPOCH, null, "refused");
    port.setAside("q32", 1, event);
    // Each application appends a field: a rewrite applied twice would show two.
    java.util.function.UnaryOperator<io.mongocdc.pipeline.PoisonEvent> increment = e -> new io.mongocdc.pipeline.PoisonEvent(
        e.position(), e.source(), e.table(), e.key(), e.operation(), e.document().replace("}", ", \"x\": 1}"),
        e.commitTime(), e.rawEvent(), e.reason());

    assertEquals(1, port.rewriteQuarantined("q32", "rewrite A", null, null, increment));
    assertEquals(0, port.rewriteQuarantined("q32", "rewrite A", null, null, increment), "the retry changes nothing");
    assertEquals(1, port.rewriteQuarantined("q32", "rewrite B", null, null, increment), "another rewrite does");
    assertEquals("{\"_id\": 1, \"n\": 0, \"x\": 1, \"x\": 1}", port.quarantined("q32").get(0).event().document());
  }
}
