package io.mongocdc.destination;

import static io.mongocdc.destination.Records.delete;
import static io.mongocdc.destination.Records.insert;
import static io.mongocdc.destination.Records.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Namespace;
import io.mongocdc.pipeline.ApplyRouting;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The destination as the apply lanes of one batch use it: several sinks on their own
 * connections, each record routed by {@link ApplyRouting}, merging inside open transactions.
 */
@Timeout(60)
class ParallelApplyTest {

  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static DataSource dataSource;

  private final String schema = "p" + SCHEMAS.incrementAndGet();
  private final Namespace users = new Namespace("app", "users");

  @BeforeAll
  static void database() {
    dataSource = EmbeddedPostgresSupport.newDatabase("lanes");
  }

  /** Every pending key is merged at once: each write leaves the lane's row locks held. */
  private PostgresSinkOptions mergingEveryWrite() {
    return PostgresSinkOptions.defaults().withSchema(schema).withFlush(1, 1);
  }

  private PostgresRecordSink open(PostgresSinkOptions options, DataSource source) throws SQLException {
    List<DestinationTable> tables;
    try (Connection c = source.getConnection()) {
      tables = PostgresDestination.setUp(c, options.schema(), List.of(users));
    }
    return PostgresRecordSink.builder(source, options, tables).open();
  }

  private void applyOnOneLane(List<ChangeRecord> records) throws Exception {
    try (PostgresRecordSink sink = open(PostgresSinkOptions.defaults().withSchema(schema), dataSource)) {
      sink.write(records);
      sink.commit();
    }
  }

  private static List<List<ChangeRecord>> route(List<ChangeRecord> records, int lanes) {
    List<List<ChangeRecord>> parts = new ArrayList<>();
    for (int i = 0; i < lanes; i++) {
      parts.add(new ArrayList<>());
    }
    records.forEach(r -> parts.get(ApplyRouting.laneOf(r, lanes)).add(r));
    return parts;
  }

  /** 200 existing keys, each updated twice in the batch. */
  private List<ChangeRecord> existingKeysUpdatedTwice() throws Exception {
    List<ChangeRecord> existing = new ArrayList<>();
    for (int k = 0; k < 200; k++) {
      existing.add(insert(users, "\"k" + k + "\"", doc("k" + k, 0), k + 1));
    }
    applyOnOneLane(existing);
    List<ChangeRecord> batch = new ArrayList<>();
    for (int round = 1; round <= 2; round++) {
      for (int k = 0; k < 200; k++) {
        batch.add(update(users, "\"k" + k + "\"", doc("k" + k, round), 1000L * round + k));
      }
    }
    return batch;
  }

  @Test
  void lanesMergingIntoOneTableNeverWaitForEachOthersRowLocks() throws Exception {
    List<List<ChangeRecord>> lanes = route(existingKeysUpdatedTwice(), 2);
    try (PostgresRecordSink first = open(mergingEveryWrite(), dataSource);
        PostgresRecordSink second = open(mergingEveryWrite(), dataSource)) {
      first.write(lanes.get(0)); // merged: its rows stay locked until it commits
      applyWithoutWaiting(second, lanes.get(1), "the first lane's row locks");
      first.commit();
    }
    Map<String, String> docs = docs();
    assertEquals(200, docs.size());
    docs.forEach((key, doc) -> assertTrue(doc.contains("\"v\": 2"), key + " ends at its newest record: " + doc));
  }

  @Test
  void aBatchReplayedAfterOneLaneCommittedAndTheOtherFailedEndsAsIfAppliedOnce() throws Exception {
    List<ChangeRecord> batch = existingKeysUpdatedTwice();
    batch.add(delete(users, "\"k7\"", 5000));
    batch.add(insert(users, "\"new\"", doc("new", 9), 5001));
    List<List<ChangeRecord>> lanes = route(batch, 2);
    try (PostgresRecordSink committed = open(mergingEveryWrite(), dataSource);
        PostgresRecordSink failed = open(mergingEveryWrite(), dataSource)) {
      committed.write(lanes.get(0));
      committed.commit();
      failed.write(lanes.get(1));
      failed.abort(new RuntimeException("connection lost"));
    }
    // The retry replays the whole batch from the checkpoint, which never moved.
    try (PostgresRecordSink first = open(mergingEveryWrite(), dataSource);
        PostgresRecordSink second = open(mergingEveryWrite(), dataSource)) {
      first.write(lanes.get(0));
      second.write(lanes.get(1));
      first.commit();
      second.commit();
    }
    Map<String, String> replayed = docs();

    String once = "q" + SCHEMAS.incrementAndGet();
    PostgresSinkOptions elsewhere = PostgresSinkOptions.defaults().withSchema(once);
    try (PostgresRecordSink sink = open(elsewhere, dataSource)) {
      List<ChangeRecord> all = new ArrayList<>();
      for (int k = 0; k < 200; k++) {
        all.add(insert(users, "\"k" + k + "\"", doc("k" + k, 0), k + 1));
      }
      all.addAll(batch);
      sink.write(all);
      sink.commit();
    }
    assertEquals(docs(once), replayed);
  }

  @Test
  void inAnEmptyTableAKeysFirstRecordIsCopiedInAndAnOlderOneLaterInTheBatchChangesNothing() throws Exception {
    try (PostgresRecordSink sink = open(PostgresSinkOptions.defaults().withSchema(schema), dataSource)) {
      sink.write(List.of(insert(users, "\"a\"", doc("a", 10), 10), delete(users, "\"gone\"", 11)));
      sink.write(List.of(update(users, "\"a\"", doc("a", 5), 5), update(users, "\"a\"", doc("a", 12), 12),
          update(users, "\"a\"", doc("a", 11), 11)));
      sink.commit();
      // a copied in, then its newest record merged once; the tombstone of "gone"
      assertEquals(3, sink.lastCommit().rowsChanged());
    }
    Map<String, String> docs = docs();
    assertEquals(jsonb("a", 12), docs.get("\"a\""));
    assertEquals("deleted null", docs.get("\"gone\""), "a tombstone row without a document");
  }

  @Test
  void mergesInsideAnOpenTransactionAreAllUndoneWhenItIsAborted() throws Exception {
    List<ChangeRecord> batch = existingKeysUpdatedTwice();
    Map<String, String> before = docs();
    try (PostgresRecordSink sink = open(mergingEveryWrite(), dataSource)) {
      for (ChangeRecord record : batch) {
        sink.write(List.of(record)); // one merge each
      }
      sink.abort(new RuntimeException("cancelled"));
      assertThrows(SinkAbortedException.class, sink::commit);
    }
    assertEquals(before, docs());
  }

  @Test
  void waitingRecordsAreMergedOnceTheyHoldFlushBytesSoASinksMemoryStaysBounded() throws Exception {
    applyOnOneLane(List.of(insert(users, "\"a\"", doc("a", 0), 1)));
    // Far more keys than one merge takes, but the bytes waiting cross the bound at once.
    PostgresSinkOptions byBytes = PostgresSinkOptions.defaults().withSchema(schema).withFlush(1_000_000, 1);
    try (PostgresRecordSink sink = open(byBytes, dataSource);
        Connection other = dataSource.getConnection();
        Statement st = other.createStatement()) {
      sink.write(List.of(update(users, "\"a\"", doc("a", 1), 2)));
      // The merge took the row's lock inside the sink's open transaction.
      SQLException locked = assertThrows(SQLException.class, () -> st.executeQuery(
          "select 1 from " + TableNaming.qualified(schema, TableNaming.tableName(users))
              + " where \"_id\" = '\"a\"' for update nowait"));
      assertEquals("55P03", locked.getSQLState(), locked.getMessage());
      sink.commit();
    }
    assertEquals(jsonb("a", 1), docs().get("\"a\""));
  }

  @Test
  void twoLanesMeetingANewCollectionAtOnceBothWriteToItsTable() throws Exception {
    Namespace created = new Namespace("app", "created_later");
    PostgresSinkOptions options = PostgresSinkOptions.defaults().withSchema(schema);
    try (PostgresRecordSink first = open(options, dataSource);
        PostgresRecordSink second = open(options, dataSource)) {
      first.write(List.of(insert(created, "\"x\"", doc("x", 1), 1)));
      // The first lane's transaction is still open; the table must not be part of it.
      applyWithoutWaiting(second, List.of(insert(created, "\"y\"", doc("y", 1), 2)),
          "the first lane's transaction");
      first.commit();
    }
    assertEquals(List.of("\"x\"", "\"y\""), new ArrayList<>(docs(schema, TableNaming.tableName(created)).keySet()));
  }

  @Test
  void theSessionOfAnAbortedSinkIsNeverHandedOutAgainByThePool() throws Exception {
    try (HikariDataSource pool = PostgresUrls.pool("pg-test", dataSource, 1)) {
      int abortedPid;
      try (PostgresRecordSink sink = open(PostgresSinkOptions.defaults().withSchema(schema), pool)) {
        abortedPid = sink.backendPid();
        sink.write(List.of(insert(users, "\"a\"", doc("a", 1), 1)));
        sink.abort(new RuntimeException("cancelled"));
      }
      try (PostgresRecordSink next = open(PostgresSinkOptions.defaults().withSchema(schema), pool)) {
        assertNotEquals(abortedPid, next.backendPid());
        next.write(List.of(insert(users, "\"b\"", doc("b", 1), 2)));
        next.commit();
      }
      try (PostgresRecordSink reused = open(PostgresSinkOptions.defaults().withSchema(schema), pool)) {
        // A healthy session is reused, its staging table and settings with it.
        reused.write(List.of(update(users, "\"b\"", doc("b", 2), 3)));
        reused.commit();
      }
    }
    assertEquals(Map.of("\"b\"", jsonb("b", 2)), docs());
  }

  /**
   * Writes and commits {@code records} through {@code sink} on another thread, which must finish
   * within 20 s while the caller's own transaction stays open; if it waits for {@code what},
   * it is aborted (which unblocks it, so the sinks can close) and the test fails.
   */
  private static void applyWithoutWaiting(PostgresRecordSink sink, List<ChangeRecord> records, String what)
      throws Exception {
    CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
      try {
        sink.write(records);
        sink.commit();
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    });
    try {
      other.get(20, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      sink.abort(e);
      throw new AssertionError("the other lane waited for " + what, e);
    }
  }

  private static String doc(String key, int v) {
    return "{\"_id\": \"" + key + "\", \"v\": " + v + "}";
  }

  private static String jsonb(String key, int v) {
    return "{\"v\": " + v + ", \"_id\": \"" + key + "\"}";
  }

  private Map<String, String> docs() throws SQLException {
    return docs(schema);
  }

  private Map<String, String> docs(String inSchema) throws SQLException {
    return docs(inSchema, TableNaming.tableName(users));
  }

  /** Key to document text (null for a tombstone) of the table. */
  private static Map<String, String> docs(String inSchema, String table) throws SQLException {
    Map<String, String> docs = new TreeMap<>();
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select \"_id\", \"doc\"::text, \"_deleted\" from "
            + TableNaming.qualified(inSchema, table))) {
      while (rs.next()) {
        docs.put(rs.getString(1), rs.getBoolean(3) ? "deleted " + rs.getString(2) : rs.getString(2));
      }
    }
    return docs;
  }
}
