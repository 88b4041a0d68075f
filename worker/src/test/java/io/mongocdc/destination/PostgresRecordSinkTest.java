package io.mongocdc.destination;

import static io.mongocdc.destination.Records.delete;
import static io.mongocdc.destination.Records.insert;
import static io.mongocdc.destination.Records.pos;
import static io.mongocdc.destination.Records.replace;
import static io.mongocdc.destination.Records.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Namespace;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.TypedColumn;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class PostgresRecordSinkTest {

  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static DataSource dataSource;

  /** Each test gets its own schema, so its tables start empty. */
  private final String schema = "t" + SCHEMAS.incrementAndGet();

  private final Namespace users = new Namespace("app", "users");
  private final Namespace orders = new Namespace("app", "orders");

  @BeforeAll
  static void database() {
    dataSource = EmbeddedPostgresSupport.newDatabase("sink");
  }

  private PostgresSinkOptions options() {
    return PostgresSinkOptions.defaults().withSchema(schema);
  }

  private PostgresRecordSink openSink(PostgresSinkOptions options, Namespace... namespaces)
      throws SQLException {
    List<DestinationTable> tables;
    try (Connection c = dataSource.getConnection()) {
      tables = PostgresDestination.setUp(c, options.schema(), List.of(namespaces));
    }
    return PostgresRecordSink.builder(dataSource, options, tables).open();
  }

  private void apply(PostgresSinkOptions options, List<ChangeRecord> records, Namespace... ns)
      throws Exception {
    try (PostgresRecordSink sink = openSink(options, ns)) {
      sink.write(records);
      sink.commit();
    }
  }

  private void apply(List<ChangeRecord> records) throws Exception {
    apply(options(), records, users, orders);
  }

  record Row(String doc, String rawDoc, String position, long commitMillis, boolean deleted) {}

  private Map<String, Row> rows(Namespace ns) throws SQLException {
    return rows(TableNaming.tableName(ns));
  }

  private Map<String, Row> rows(String table) throws SQLException {
    Map<String, Row> rows = new TreeMap<>();
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "select \"_id\", \"doc\"::text, \"_raw_doc\", \"_position\", \"_commit_time\","
                    + " \"_deleted\" from "
                    + TableNaming.qualified(schema, table))) {
      while (rs.next()) {
        rows.put(
            rs.getString(1),
            new Row(
                rs.getString(2),
                rs.getString(3),
                rs.getString(4),
                rs.getTimestamp(5).getTime(),
                rs.getBoolean(6)));
      }
    }
    return rows;
  }

  /** Rows including _synced_at, to prove a replay writes nothing at all. */
  private List<String> rawRows(Namespace ns) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "select t::text, xmin::text from "
                    + TableNaming.qualified(schema, TableNaming.tableName(ns))
                    + " t order by \"_id\"")) {
      while (rs.next()) {
        rows.add(rs.getString(1) + " xmin=" + rs.getString(2));
      }
    }
    return rows;
  }

  private static String doc(String key, int v) {
    return "{\"_id\": \"" + key + "\", \"v\": " + v + "}";
  }

  private static String jsonb(String key, int v) {
    return "{\"v\": " + v + ", \"_id\": \"" + key + "\"}";
  }

  @Test
  void appliesInsertUpdateReplaceDelete() throws Exception {
    apply(
        List.of(
            insert(users, "\"a\"", doc("a", 1), 1),
            insert(users, "\"b\"", doc("b", 1), 2),
            update(users, "\"a\"", doc("a", 2), 3),
            replace(users, "\"b\"", doc("b", 3), 4),
            insert(users, "\"c\"", doc("c", 1), 5)));
    apply(List.of(delete(users, "\"c\"", 6)));
    Map<String, Row> rows = rows(users);
    assertEquals(3, rows.size());
    assertEquals(jsonb("a", 2), rows.get("\"a\"").doc());
    assertEquals(pos(3).data(), rows.get("\"a\"").position());
    assertEquals(Records.T0.plusMillis(3).toEpochMilli(), rows.get("\"a\"").commitMillis());
    assertEquals(jsonb("b", 3), rows.get("\"b\"").doc());
    Row c = rows.get("\"c\"");
    assertTrue(c.deleted());
    assertEquals(jsonb("c", 1), c.doc(), "a soft delete keeps the last document");
    assertEquals(pos(6).data(), c.position());
  }

  @Test
  void replayingBatchesChangesNothing() throws Exception {
    List<ChangeRecord> batch1 =
        List.of(
            insert(users, "\"a\"", doc("a", 1), 1),
            insert(users, "\"b\"", doc("b", 1), 2),
            insert(orders, "1", "{\"_id\": 1}", 3));
    List<ChangeRecord> batch2 =
        List.of(
            update(users, "\"a\"", doc("a", 2), 4),
            delete(users, "\"b\"", 5),
            delete(orders, "1", 6),
            insert(users, "\"d\"", doc("d", 1), 7));
    apply(batch1);
    apply(batch2);
    List<String> users1 = rawRows(users);
    List<String> orders1 = rawRows(orders);
    // replay both, in order, then the older one again: no row is even rewritten (same xmin)
    apply(batch1);
    apply(batch2);
    apply(batch1);
    assertEquals(users1, rawRows(users));
    assertEquals(orders1, rawRows(orders));
  }

  @Test
  void duplicatedAndReorderedRecordsEndAtTheNewestPosition() throws Exception {
    List<ChangeRecord> inOrder = new ArrayList<>();
    Random random = new Random(42);
    int n = 1;
    for (int i = 0; i < 300; i++) {
      String name = "k" + random.nextInt(40);
      String key = "\"" + name + "\"";
      int kind = random.nextInt(10);
      if (kind < 5) {
        inOrder.add(update(users, key, doc(name, i), n++));
      } else if (kind < 8) {
        inOrder.add(insert(users, key, doc(name, i), n++));
      } else {
        inOrder.add(delete(users, key, n++));
      }
    }
    apply(options(), inOrder, users);
    Map<String, Row> expected = rows(users);

    String otherSchema = "t" + SCHEMAS.incrementAndGet();
    List<ChangeRecord> shuffled = new ArrayList<>(inOrder);
    shuffled.addAll(inOrder.subList(0, 100)); // duplicates
    Collections.shuffle(shuffled, random);
    PostgresSinkOptions other = options().withSchema(otherSchema);
    try (PostgresRecordSink sink = openSink(other, users)) {
      // several chunks and several transactions, each out of order
      for (int from = 0; from < shuffled.size(); from += 50) {
        sink.write(shuffled.subList(from, Math.min(shuffled.size(), from + 50)));
        if (from % 150 == 0) {
          sink.commit();
        }
      }
      sink.commit();
    }
    Map<String, Row> actual = rowsIn(otherSchema, users);
    assertEquals(expected.keySet(), actual.keySet());
    for (String key : expected.keySet()) {
      Row e = expected.get(key);
      Row a = actual.get(key);
      assertEquals(e.position(), a.position(), key);
      assertEquals(e.deleted(), a.deleted(), key);
      if (!e.deleted()) {
        assertEquals(e.doc(), a.doc(), key);
      }
    }
  }

  private Map<String, Row> rowsIn(String otherSchema, Namespace ns) throws SQLException {
    Map<String, Row> rows = new TreeMap<>();
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "select \"_id\", \"doc\"::text, \"_raw_doc\", \"_position\", \"_commit_time\","
                    + " \"_deleted\" from "
                    + TableNaming.qualified(otherSchema, TableNaming.tableName(ns)))) {
      while (rs.next()) {
        rows.put(
            rs.getString(1),
            new Row(rs.getString(2), rs.getString(3), rs.getString(4),
                rs.getTimestamp(5).getTime(), rs.getBoolean(6)));
      }
    }
    return rows;
  }

  @Test
  void aKeyCopiedStraightInIsStillGuardedLaterInTheBatch() throws Exception {
    apply(List.of(insert(users, "\"old\"", doc("old", 1), 1)));
    try (PostgresRecordSink sink = openSink(options(), users)) {
      // chunk 1: new keys, and an update of "old", which exists
      sink.write(
          List.of(
              insert(users, "\"a\"", doc("a", 10), 10),
              insert(users, "\"b\"", doc("b", 11), 11),
              update(users, "\"old\"", doc("old", 12), 12)));
      // chunk 2: an older record for a (out of order), a newer one for b, a delete of a new key
      sink.write(
          List.of(
              update(users, "\"a\"", doc("a", 5), 5),
              update(users, "\"b\"", doc("b", 13), 13),
              delete(users, "\"c\"", 14)));
      sink.commit();
      assertEquals(6, sink.lastCommit().records());
      // a and b copied in, old updated, c's tombstone: b's second record supersedes its first
      // before anything is sent, and the older record for a changes nothing
      assertEquals(4, sink.lastCommit().rowsChanged());
    }
    Map<String, Row> rows = rows(users);
    assertEquals(jsonb("a", 10), rows.get("\"a\"").doc());
    assertEquals(pos(10).data(), rows.get("\"a\"").position());
    assertEquals(jsonb("b", 13), rows.get("\"b\"").doc());
    assertEquals(jsonb("old", 12), rows.get("\"old\"").doc());
    assertTrue(rows.get("\"c\"").deleted());
  }

  @Test
  void olderBatchAfterNewerChangesNothing() throws Exception {
    apply(List.of(insert(users, "\"a\"", doc("a", 5), 50), delete(users, "\"b\"", 51)));
    apply(List.of(insert(users, "\"a\"", doc("a", 1), 10), insert(users, "\"b\"", doc("b", 1), 11)));
    Map<String, Row> rows = rows(users);
    assertEquals(jsonb("a", 5), rows.get("\"a\"").doc());
    Row b = rows.get("\"b\"");
    assertTrue(b.deleted(), "a tombstone keeps an older insert from resurrecting the document");
    assertNull(b.doc());
    assertEquals(pos(51).data(), b.position());
  }

  @Test
  void deleteThenReinsert() throws Exception {
    // within one batch
    apply(
        List.of(
            insert(users, "\"a\"", doc("a", 1), 1),
            delete(users, "\"a\"", 2),
            insert(users, "\"a\"", doc("a", 3), 3)));
    // across batches
    apply(List.of(insert(users, "\"b\"", doc("b", 1), 4)));
    apply(List.of(delete(users, "\"b\"", 5)));
    assertTrue(rows(users).get("\"b\"").deleted());
    apply(List.of(insert(users, "\"b\"", doc("b", 6), 6)));
    Map<String, Row> rows = rows(users);
    assertFalse(rows.get("\"a\"").deleted());
    assertEquals(jsonb("a", 3), rows.get("\"a\"").doc());
    assertFalse(rows.get("\"b\"").deleted());
    assertEquals(jsonb("b", 6), rows.get("\"b\"").doc());
    assertEquals(pos(6).data(), rows.get("\"b\"").position());
  }

  @Test
  void updateOfDeletedDocument() throws Exception {
    apply(List.of(insert(users, "\"a\"", doc("a", 1), 1)));
    apply(List.of(delete(users, "\"a\"", 3)));
    // a replayed update from before the delete, and one without post-image after it
    apply(List.of(update(users, "\"a\"", doc("a", 2), 2), update(users, "\"a\"", null, 4)));
    Row a = rows(users).get("\"a\"");
    assertTrue(a.deleted());
    assertEquals(jsonb("a", 1), a.doc());
    assertEquals(pos(3).data(), a.position());
  }

  @Test
  void updateWithoutPostImageKeepsTheRow() throws Exception {
    apply(List.of(insert(users, "\"a\"", doc("a", 1), 1)));
    try (PostgresRecordSink sink = openSink(options(), users)) {
      // in one batch: a post-image-less update must not hide the earlier insert either
      sink.write(
          List.of(
              update(users, "\"a\"", null, 2),
              insert(users, "\"n\"", doc("n", 1), 3),
              update(users, "\"n\"", null, 4),
              update(users, "\"x\"", null, 5)));
      sink.commit();
      SinkBatchStats.TableStats stats = sink.lastCommit().tables().get(0);
      assertEquals(3, stats.updatesWithoutDocument());
      assertEquals(3, stats.updates());
    }
    Map<String, Row> rows = rows(users);
    assertEquals(jsonb("a", 1), rows.get("\"a\"").doc());
    assertEquals(pos(1).data(), rows.get("\"a\"").position());
    assertEquals(jsonb("n", 1), rows.get("\"n\"").doc());
    assertFalse(rows.containsKey("\"x\""), "no row is made from an update without post-image");
  }

  @Test
  void hardDeletesRemoveRows() throws Exception {
    PostgresSinkOptions hard = options().withDeleteMode(DeleteMode.HARD);
    apply(
        hard,
        List.of(
            insert(users, "\"a\"", doc("a", 1), 1),
            insert(users, "\"b\"", doc("b", 1), 2),
            delete(users, "\"a\"", 3),
            delete(users, "\"z\"", 4)),
        users);
    apply(hard, List.of(delete(users, "\"b\"", 5), insert(users, "\"c\"", doc("c", 1), 6)), users);
    // an older delete does not remove a newer row
    apply(hard, List.of(delete(users, "\"c\"", 5)), users);
    assertEquals(List.of("\"c\""), new ArrayList<>(rows(users).keySet()));
  }

  @Test
  void valuesJsonbCannotHoldAreReplacedAndKeptRaw() throws Exception {
    String withNul = "{\"_id\": \"a\", \"s\": \"x\\u0000y\", \"k\\u0000\": 1, \"ok\": \"\\\\u0000\"}";
    String loneSurrogate = "{\"_id\": \"b\", \"s\": \"\\ud800!\"}";
    String pair = "{\"_id\": \"c\", \"s\": \"\\ud83d\\ude00\"}";
    apply(
        List.of(
            insert(users, "\"a\"", withNul, 1),
            insert(users, "\"b\"", loneSurrogate, 2),
            insert(users, "\"c\"", pair, 3),
            insert(users, "\"d\"", doc("d", 1), 4)));
    Map<String, Row> rows = rows(users);
    Row a = rows.get("\"a\"");
    assertEquals("{\"s\": \"x\uFFFDy\", \"ok\": \"\\\\u0000\", \"_id\": \"a\", \"k\uFFFD\": 1}", a.doc());
    assertEquals(withNul, a.rawDoc(), "the exact original is kept");
    assertEquals("{\"s\": \"\uFFFD!\", \"_id\": \"b\"}", rows.get("\"b\"").doc());
    assertEquals(loneSurrogate, rows.get("\"b\"").rawDoc());
    assertEquals("{\"s\": \"\uD83D\uDE00\", \"_id\": \"c\"}", rows.get("\"c\"").doc());
    assertNull(rows.get("\"c\"").rawDoc());
    assertNull(rows.get("\"d\"").rawDoc());
    // a later clean version clears the raw copy
    apply(List.of(update(users, "\"a\"", doc("a", 2), 5)));
    assertNull(rows(users).get("\"a\"").rawDoc());
  }

  @Test
  void tenThousandRecordsAcrossSeveralTables() throws Exception {
    Namespace[] namespaces = {
      users, orders, new Namespace("app", "events"), new Namespace("billing", "invoices")
    };
    Random random = new Random(7);
    List<ChangeRecord> records = new ArrayList<>();
    Map<String, Map<String, ChangeRecord>> expected = new HashMap<>();
    for (int i = 1; i <= 10_000; i++) {
      Namespace ns = namespaces[random.nextInt(namespaces.length)];
      String key = Integer.toString(random.nextInt(1500));
      int kind = random.nextInt(20);
      ChangeRecord r =
          kind == 0
              ? delete(ns, key, i)
              : kind < 8
                  ? insert(ns, key, "{\"_id\": " + key + ", \"pad\": \"" + "x".repeat(200) + "\", \"i\": " + i + "}", i)
                  : update(ns, key, "{\"_id\": " + key + ", \"i\": " + i + "}", i);
      records.add(r);
      expected.computeIfAbsent(r.table(), t -> new HashMap<>()).put(key, r);
    }
    try (PostgresRecordSink sink = openSink(options(), namespaces)) {
      for (int from = 0; from < records.size(); from += 256) {
        sink.write(records.subList(from, Math.min(records.size(), from + 256)));
      }
      sink.commit();
      assertEquals(10_000, sink.lastCommit().records());
      assertEquals(4, sink.lastCommit().tables().size());
    }
    for (Namespace ns : namespaces) {
      Map<String, Row> rows = rows(ns);
      Map<String, ChangeRecord> last = expected.get(TableNaming.tableName(ns));
      assertEquals(last.size(), rows.size(), ns.toString());
      for (Map.Entry<String, ChangeRecord> e : last.entrySet()) {
        Row row = rows.get(e.getKey());
        assertEquals(e.getValue().position().data(), row.position(), e.getKey());
        assertEquals(e.getValue().document() == null, row.deleted(), e.getKey());
      }
    }
  }

  @Test
  void identifiersAreQuotedAndLongNamesShortenedDistinctly() throws Exception {
    String long200 = "c".repeat(200);
    List<Namespace> namespaces =
        List.of(
            new Namespace("db", "with\"quote"),
            new Namespace("db", "with.dots.in.it"),
            new Namespace("db", "with space; drop table x; --"),
            new Namespace("db", "ünïcødé-名前-🙂"),
            new Namespace("db", "UPPER"),
            new Namespace("db", "upper"),
            new Namespace("db", long200),
            new Namespace("db", long200 + "x"),
            new Namespace("db", "é".repeat(100)));
    List<ChangeRecord> records = new ArrayList<>();
    int n = 1;
    for (Namespace ns : namespaces) {
      records.add(insert(ns, "1", "{\"_id\": 1, \"ns\": \"" + ns.fullName().replace("\"", "\\\"") + "\"}", n++));
    }
    apply(options(), records, namespaces.toArray(new Namespace[0]));
    List<String> tables;
    try (Connection c = dataSource.getConnection()) {
      tables = PostgresDestination.mirroredTables(c, schema);
    }
    assertEquals(namespaces.size(), tables.size(), tables.toString());
    for (Namespace ns : namespaces) {
      String table = TableNaming.tableName(ns);
      assertTrue(tables.contains(table), table);
      assertTrue(table.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= 63);
      assertEquals(1, rows(table).size(), table);
    }
  }

  @Test
  void everyColumnATableIsCreatedWithIsOneNoTypedColumnMayTake() throws Exception {
    Set<String> columns = new HashSet<>();
    try (Connection c = dataSource.getConnection()) {
      PostgresDestination.setUp(c, schema, List.of(users));
      try (PreparedStatement st = c.prepareStatement(
          "select column_name from information_schema.columns where table_schema = ? and table_name = ?")) {
        st.setString(1, schema);
        st.setString(2, TableNaming.tableName(users));
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            columns.add(rs.getString(1));
          }
        }
      }
    }
    assertTrue(TypedColumn.TABLE_COLUMNS.containsAll(columns), "no typed column may take a table's own column: " + columns);
  }

  @Test
  void setUpRefusesAnExistingTableOfAnotherCollection() throws Exception {
    Namespace a = new Namespace("db", "a");
    try (Connection c = dataSource.getConnection()) {
      PostgresDestination.setUp(c, schema, List.of(a));
      DestinationTable clash = new DestinationTable(new Namespace("other", "b"), schema, "db.a");
      c.setAutoCommit(false);
      TableNameCollisionException e =
          assertThrows(
              TableNameCollisionException.class,
              () -> PostgresDestination.createTable(c, clash));
      c.rollback();
      assertTrue(e.getMessage().contains("db.a") && e.getMessage().contains("other.b"), e.getMessage());
    }
  }

  @Test
  void sinkRefusesTwoCollectionsForOneTable() throws Exception {
    Namespace a = new Namespace("db", "a");
    ChangeRecord other =
        ChangeRecord.builder().operation(io.mongocdc.decode.Operation.INSERT).source(new Namespace("db2", "zz"))
            .table("db.a").key("1").document("{}").position(pos(2)).commitTime(Records.T0).sourceBytes(1).build();
    try (PostgresRecordSink sink = openSink(options(), a)) {
      TableNameCollisionException e =
          assertThrows(TableNameCollisionException.class, () -> sink.write(List.of(other)));
      assertTrue(e.getMessage().contains("db2.zz"), e.getMessage());
    }
  }

  @Test
  void collectionsNotSetUpGetTablesInTheBatch() throws Exception {
    Namespace late = new Namespace("app", "late");
    try (PostgresRecordSink sink = openSink(options(), users)) {
      sink.write(List.of(insert(late, "1", "{\"_id\": 1}", 1)));
      sink.commit();
    }
    assertEquals(1, rows(late).size());
  }

  @Test
  void nothingIsVisibleBeforeCommit() throws Exception {
    try (PostgresRecordSink sink = openSink(options(), users)) {
      sink.write(List.of(insert(users, "\"a\"", doc("a", 1), 1)));
      assertTrue(rows(users).isEmpty());
      sink.commit();
      assertEquals(1, rows(users).size());
    }
  }

  @Test
  void killedConnectionMidBatchLeavesTablesAsBefore() throws Exception {
    apply(List.of(insert(users, "\"a\"", doc("a", 1), 1), insert(orders, "1", "{\"_id\": 1}", 2)));
    List<String> usersBefore = rawRows(users);
    List<String> ordersBefore = rawRows(orders);
    try (PostgresRecordSink sink = openSink(options(), users, orders)) {
      sink.write(List.of(update(users, "\"a\"", doc("a", 2), 3), insert(users, "\"b\"", doc("b", 1), 4)));
      sink.write(List.of(delete(orders, "1", 5)));
      terminate(sink.backendPid());
      Exception e =
          assertThrows(
              Exception.class,
              () -> {
                sink.write(List.of(insert(users, "\"c\"", doc("c", 1), 6)));
                sink.commit();
              });
      assertNotNull(e.getMessage());
      // the sink is unusable now; a retry opens a new one
      assertThrows(IllegalStateException.class, sink::commit);
    }
    assertEquals(usersBefore, rawRows(users));
    assertEquals(ordersBefore, rawRows(orders));
  }

  @Test
  void connectionKilledDuringMergeFailsCommit() throws Exception {
    apply(List.of(insert(users, "\"a\"", doc("a", 1), 1)));
    List<String> before = rawRows(users);
    try (Connection locker = dataSource.getConnection();
        PostgresRecordSink sink = openSink(options(), users)) {
      sink.write(List.of(update(users, "\"a\"", doc("a", 2), 2)));
      locker.setAutoCommit(false);
      try (Statement st = locker.createStatement()) {
        st.execute("lock table " + TableNaming.qualified(schema, "app.users") + " in exclusive mode");
      }
      CompletableFuture<Void> commit =
          CompletableFuture.runAsync(
              () -> {
                try {
                  sink.commit();
                } catch (Exception e) {
                  throw new RuntimeException(e);
                }
              });
      awaitWaitingOnLock(sink.backendPid());
      terminate(sink.backendPid());
      ExecutionException e = assertThrows(ExecutionException.class, () -> commit.get(30, TimeUnit.SECONDS));
      assertNotNull(e.getCause());
      locker.rollback();
    }
    assertEquals(before, rawRows(users));
  }

  @Test
  void abortFromAnotherThreadUnblocksCommitAndRollsBack() throws Exception {
    apply(List.of(insert(users, "\"a\"", doc("a", 1), 1)));
    List<String> before = rawRows(users);
    try (Connection locker = dataSource.getConnection();
        PostgresRecordSink sink = openSink(options(), users)) {
      sink.write(List.of(update(users, "\"a\"", doc("a", 2), 2)));
      locker.setAutoCommit(false);
      try (Statement st = locker.createStatement()) {
        st.execute("lock table " + TableNaming.qualified(schema, "app.users") + " in exclusive mode");
      }
      int pid = sink.backendPid();
      CompletableFuture<Void> commit =
          CompletableFuture.runAsync(
              () -> {
                try {
                  sink.commit();
                } catch (Exception e) {
                  throw new RuntimeException(e);
                }
              });
      awaitWaitingOnLock(pid);
      sink.abort(new RuntimeException("cancelled by test"));
      ExecutionException e = assertThrows(ExecutionException.class, () -> commit.get(30, TimeUnit.SECONDS));
      assertTrue(e.getCause().getCause() instanceof SinkAbortedException, e.toString());
      locker.rollback();
      assertThrows(SinkAbortedException.class, () -> sink.write(List.of()));
    }
    assertEquals(before, rawRows(users));
  }

  private void terminate(int pid) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("select pg_terminate_backend(?)")) {
      ps.setInt(1, pid);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertTrue(rs.getBoolean(1));
      }
    }
  }

  /** Polls pg_stat_activity (each poll is a round trip; no sleeping) until pid waits on a lock. */
  private void awaitWaitingOnLock(int pid) throws SQLException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "select wait_event_type from pg_stat_activity where pid = ?")) {
      ps.setInt(1, pid);
      while (System.nanoTime() < deadline) {
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next() && "Lock".equals(rs.getString(1))) {
            return;
          }
        }
      }
    }
    throw new AssertionError("backend " + pid + " never waited on the lock");
  }
}
