package io.mongocdc.destination;

import static io.mongocdc.destination.Records.T0;
import static io.mongocdc.destination.Records.delete;
import static io.mongocdc.destination.Records.insert;
import static io.mongocdc.destination.Records.pos;
import static io.mongocdc.destination.Records.update;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The history table beside a state table: every applied event once, in the state's transaction. */
class HistoryTableTest {

  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static DataSource dataSource;

  private final String schema = "h" + SCHEMAS.incrementAndGet();
  private final Namespace orders = new Namespace("app", "orders");
  private final Namespace users = new Namespace("app", "users");
  private final Predicate<Namespace> ordersKeepHistory = orders::equals;

  @BeforeAll
  static void database() {
    dataSource = EmbeddedPostgresSupport.newDatabase("history");
  }

  private PostgresSinkOptions options() {
    return PostgresSinkOptions.defaults().withSchema(schema);
  }

  private PostgresRecordSink openSink(PostgresSinkOptions options, Predicate<Namespace> keepsHistory)
      throws SQLException {
    List<DestinationTable> tables;
    try (Connection c = dataSource.getConnection()) {
      tables = PostgresDestination.setUp(c, schema, List.of(orders, users), keepsHistory);
    }
    return PostgresRecordSink.builder(dataSource, options, tables.subList(0, 2)).keepsHistory(keepsHistory).open();
  }

  private SinkBatchStats apply(PostgresSinkOptions options, List<ChangeRecord> records) throws Exception {
    try (PostgresRecordSink sink = openSink(options, ordersKeepHistory)) {
      sink.write(records);
      sink.commit();
      return sink.lastCommit();
    }
  }

  private static ChangeRecord withImages(ChangeRecord r, String before, String updateDescription) {
    return r.toBuilder().documentBefore(before).updateDescription(updateDescription).build();
  }

  private String historyTable() {
    return TableNaming.qualified(schema, "app.orders_history");
  }

  /** Every history row as text, in position order. */
  private List<String> history() throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select \"_position\", \"_id\", \"_operation\", \"_commit_time\", \"doc\"::text,"
            + " \"doc_before\"::text, \"updateDescription\"::text, xmin::text from " + historyTable()
            + " order by \"_position\"")) {
      while (rs.next()) {
        rows.add(rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3) + " "
            + rs.getTimestamp(4).toInstant().toEpochMilli() + " " + rs.getString(5) + " " + rs.getString(6) + " "
            + rs.getString(7) + " xmin=" + rs.getString(8));
      }
    }
    return rows;
  }

  private List<ChangeRecord> events() {
    return List.of(
        insert(orders, "1", "{\"_id\": 1, \"s\": \"new\"}", 1),
        withImages(update(orders, "1", "{\"_id\": 1, \"s\": \"paid\"}", 2), "{\"_id\": 1, \"s\": \"new\"}",
            "{\"updatedFields\": {\"s\": \"paid\"}, \"removedFields\": [], \"truncatedArrays\": []}"),
        insert(orders, "2", "{\"_id\": 2}", 3),
        withImages(update(orders, "2", null, 4), null, "{\"updatedFields\": {\"x\": 1}}"),
        withImages(delete(orders, "2", 5), "{\"_id\": 2}", null),
        insert(users, "9", "{\"_id\": 9}", 6));
  }

  /**
   * Documents deleted while the history was off: a tombstone gets its delete at its own position
   * and time, a document removed outright (hard deletes) at the copy's position; a live one and one
   * whose delete the history holds get nothing, and marking again adds nothing (issue 47, finding 10).
   */
  @Test
  void documentsDeletedWhileTheHistoryWasOffGetTheirDeleteTombstonesAtTheirOwnPosition() throws Exception {
    apply(options(), List.of(insert(orders, "1", "{\"_id\": 1}", 1), insert(orders, "2", "{\"_id\": 2}", 2),
        insert(orders, "3", "{\"_id\": 3}", 3), insert(orders, "4", "{\"_id\": 4}", 4), delete(orders, "4", 5)));
    try (PostgresRecordSink off = openSink(options(), ns -> false)) {
      off.write(List.of(delete(orders, "1", 6)));
      off.commit();
    }
    try (PostgresRecordSink hard = openSink(options().withDeleteMode(DeleteMode.HARD), ns -> false)) {
      hard.write(List.of(delete(orders, "2", 7)));
      hard.commit();
    }
    HistoryGapDeletes gap = new HistoryGapDeletes(
        new DestinationTable(orders, schema, TableNaming.tableName(orders)));

    try (Connection c = dataSource.getConnection()) {
      assertEquals(2, gap.mark(c, pos(9).data(), T0.plusMillis(9)));
      assertEquals(0, gap.mark(c, pos(10).data(), T0.plusMillis(10)), "marked once");
    }

    List<String> deletes = history().stream().map(r -> r.replaceAll(" xmin=.*", ""))
        .filter(r -> r.contains(" delete ")).toList();
    assertEquals(List.of(
        pos(5).data() + " 4 delete " + T0.plusMillis(5).toEpochMilli() + " null null null",
        pos(6).data() + " 1 delete " + T0.plusMillis(6).toEpochMilli() + " null null null",
        pos(9).data() + " 2 delete " + T0.plusMillis(9).toEpochMilli() + " null null null"), deletes);
  }

  @Test
  void everyEventIsAppendedWithItsImagesAndTheStateRowHasTheHistoryRowOfItsPosition() throws Exception {
    SinkBatchStats stats = apply(options(), events());

    List<String> rows = history().stream().map(r -> r.replaceAll(" xmin=.*", "")).toList();
    assertEquals(List.of(
        pos(1).data() + " 1 insert " + T0.plusMillis(1).toEpochMilli() + " {\"s\": \"new\", \"_id\": 1} null null",
        pos(2).data() + " 1 update " + T0.plusMillis(2).toEpochMilli() + " {\"s\": \"paid\", \"_id\": 1}"
            + " {\"s\": \"new\", \"_id\": 1}"
            + " {\"removedFields\": [], \"updatedFields\": {\"s\": \"paid\"}, \"truncatedArrays\": []}",
        pos(3).data() + " 2 insert " + T0.plusMillis(3).toEpochMilli() + " {\"_id\": 2} null null",
        pos(4).data() + " 2 update " + T0.plusMillis(4).toEpochMilli() + " null null {\"updatedFields\": {\"x\": 1}}",
        pos(5).data() + " 2 delete " + T0.plusMillis(5).toEpochMilli() + " null {\"_id\": 2} null"), rows);
    assertEquals(5, stats.tables().get(0).historyRows());
    assertEquals(0, stats.tables().get(1).historyRows(), "users keep no history");
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select count(*) from " + TableNaming.qualified(schema, "app.orders")
            + " s where not exists (select 1 from " + historyTable() + " h where h.\"_position\" = s.\"_position\""
            + " and h.\"_id\" = s.\"_id\")")) {
      rs.next();
      assertEquals(0, rs.getLong(1), "each latest-state row has the history row of its _position");
    }
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select count(*) from pg_class where relname = 'app.users_history'")) {
      rs.next();
      assertEquals(0, rs.getLong(1));
    }
  }

  @Test
  void aReplayedOrOlderBatchAppendsNothing() throws Exception {
    apply(options(), events());
    List<String> before = history();

    SinkBatchStats replay = apply(options(), events());
    SinkBatchStats older = apply(options(), events().subList(0, 3));

    assertEquals(before, history(), "not one row added or rewritten (xmin unchanged)");
    assertEquals(0, replay.tables().get(0).historyRows());
    assertEquals(0, older.tables().get(0).historyRows());
  }

  @Test
  void aReplayOverlappingNewEventsAppendsOnlyTheNewOnesWhateverTheFlushPoints() throws Exception {
    PostgresSinkOptions small = options().withFlush(2, 1);
    apply(small, events().subList(0, 3));

    SinkBatchStats overlapping = apply(small, events());

    assertEquals(5, history().size());
    assertEquals(2, overlapping.tables().get(0).historyRows());
    assertEquals(List.of(1L), positionCounts(), "one row per position");
  }

  @Test
  void theDocumentsASnapshotCopiesAtOnePositionEachGetTheirRowOnce() throws Exception {
    List<ChangeRecord> copied = List.of(insert(orders, "1", "{\"_id\": 1}", 7), insert(orders, "2", "{\"_id\": 2}", 7),
        insert(orders, "3", "{\"_id\": 3}", 7));

    apply(options(), copied);
    apply(options(), copied); // the partition copied again after a retry

    assertEquals(3, history().size());
  }

  @Test
  void aFailedTransactionLeavesNoHistoryAndItsRetryAppendsOnce() throws Exception {
    try (PostgresRecordSink sink = openSink(options(), ordersKeepHistory)) {
      sink.write(events());
      // A duplicate key from a foreign writer fails the commit: history and state roll back together.
      try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
        st.execute("insert into " + TableNaming.qualified(schema, "app.users")
            + " (\"_id\", \"doc\", \"_position\", \"_commit_time\") values ('9', '{}', 'x', now())");
      }
      assertThrows(SQLException.class, sink::commit);
    }
    assertEquals(List.of(), history());
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
      st.execute("delete from " + TableNaming.qualified(schema, "app.users"));
    }

    apply(options(), events());
    apply(options(), events());

    assertEquals(5, history().size());
  }

  @Test
  void historyTurnedOnLaterGetsItsTableOnTheWay() throws Exception {
    List<DestinationTable> tables;
    try (Connection c = dataSource.getConnection()) {
      tables = PostgresDestination.setUp(c, schema, List.of(orders, users));
    }
    List<DestinationTable> claimed = new ArrayList<>();
    try (PostgresRecordSink sink = PostgresRecordSink.builder(dataSource, options(), tables)
        .claims(claimed::add).keepsHistory(ordersKeepHistory).open()) {
      sink.write(events());
      sink.commit();
    }

    assertEquals(5, history().size());
    assertEquals(List.of(new DestinationTable(orders, schema, "app.orders_history")), claimed,
        "claimed for the mirror before it is created");
  }

  @Test
  void aHistoryNameThatIsAnotherCollectionsTableIsRefused() throws Exception {
    Namespace ordersHistory = new Namespace("app", "orders_history");
    List<DestinationTable> tables = PostgresDestination.plan(schema, List.of(orders, ordersHistory),
        TableNaming.instance());

    TableNameCollisionException planned = assertThrows(TableNameCollisionException.class,
        () -> PostgresDestination.planHistory(tables, ordersKeepHistory));
    assertTrue(planned.getMessage().contains("app.orders_history"), planned.getMessage());

    try (Connection c = dataSource.getConnection()) {
      PostgresDestination.setUp(c, schema, List.of(ordersHistory));
      c.setAutoCommit(false);
      assertThrows(TableNameCollisionException.class,
          () -> PostgresDestination.createHistoryTable(c, PostgresDestination.historyOf(tables.get(0))));
      c.rollback();
      PostgresDestination.setUp(c, schema, List.of(orders), ordersKeepHistory::test);
    } catch (TableNameCollisionException expected) {
      // the set-up of orders with history refuses too: its history table is a state table
      return;
    }
    throw new AssertionError("setting up orders with history over the table of orders_history must be refused");
  }

  @Test
  void theStateOfADocumentAtATimeIsItsLastHistoryRowUpToThen() throws Exception {
    apply(options(), events());

    assertEquals("{\"s\": \"new\", \"_id\": 1}", stateAt("1", T0.plusMillis(1)));
    assertEquals("{\"s\": \"paid\", \"_id\": 1}", stateAt("1", T0.plusMillis(4)));
    assertEquals("deleted", stateAt("2", T0.plusMillis(5)));
    assertEquals("absent", stateAt("2", T0));
  }

  /** The query docs/destination.md gives for "the state of _id X at time T". */
  private String stateAt(String id, java.time.Instant t) throws SQLException {
    try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(
        "select \"_operation\", \"doc\"::text from " + historyTable()
            + " where \"_id\" = ? and \"_commit_time\" <= ? and not (\"_operation\" = 'update' and \"doc\" is null)"
            + " order by \"_position\" desc limit 1")) {
      ps.setString(1, id);
      ps.setTimestamp(2, Timestamp.from(t));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return "absent";
        }
        return rs.getString(1).equals(Operation.DELETE.operationType()) ? "deleted" : rs.getString(2);
      }
    }
  }

  @Test
  void retentionPrunesExpiredRowsInBoundedStatementsAndKeepsEachStateRowsOwn() throws Exception {
    apply(options(), events()); // commit times in January 2026, long before now
    DestinationTable state = new DestinationTable(orders, schema, "app.orders");

    try (Connection c = dataSource.getConnection()) {
      assertEquals(0, HistoryRetention.prune(c, state, 36_500, 10), "nothing is a hundred years old");
      assertEquals(2, HistoryRetention.prune(c, state, 1, 2), "at most the limit");
      assertEquals(1, HistoryRetention.prune(c, state, 1, 2));
      assertEquals(0, HistoryRetention.prune(c, state, 1, 2));
      assertEquals(0, HistoryRetention.prune(c, new DestinationTable(users, schema, "app.users"), 1, 2),
          "a table without history has nothing to prune");
    }

    assertEquals(List.of(pos(2).data() + " 1 update", pos(5).data() + " 2 delete"),
        history().stream().map(r -> r.substring(0, r.indexOf(" update") > 0 ? r.indexOf(" update") + 7
            : r.indexOf(" delete") + 7)).toList(), "the rows the state rows point at stay");
  }

  private List<Long> positionCounts() throws SQLException {
    List<Long> counts = new ArrayList<>();
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select distinct count(*) from " + historyTable() + " group by \"_position\"")) {
      while (rs.next()) {
        counts.add(rs.getLong(1));
      }
    }
    return counts;
  }
}
