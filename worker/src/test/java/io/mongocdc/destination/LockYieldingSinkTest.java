package io.mongocdc.destination;

import static io.mongocdc.destination.Records.insert;
import static io.mongocdc.destination.Records.pos;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.pipeline.PoisonEvents;
import io.mongocdc.ports.GiveWay;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.SnapshotCopier;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A copy's writes beside a batch lane's, on a real PostgreSQL: the copy gives way to the lane's
 * locks, so the two never deadlock and the lane waits little, and the rows end as the positions
 * say whatever the order.
 */
class LockYieldingSinkTest {

  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static DataSource dataSource;

  private final String schema = "y" + SCHEMAS.incrementAndGet();
  private final Namespace users = new Namespace("app", "users");
  /** The copy's position: older than every lane write here. */
  private static final long COPY = 5;

  private List<DestinationTable> tables;

  @BeforeAll
  static void database() {
    dataSource = EmbeddedPostgresSupport.newDatabase("yield");
  }

  private PostgresSinkBuilder builder() throws SQLException {
    if (tables == null) {
      try (Connection c = dataSource.getConnection()) {
        tables = PostgresDestination.setUp(c, schema, List.of(users));
      }
    }
    return PostgresRecordSink.builder(dataSource, PostgresSinkOptions.defaults().withSchema(schema), tables);
  }

  private LockYieldingSink copySink(LockYieldingSink.Bounds bounds) throws SQLException {
    return LockYieldingSink.of(builder(), "the copy", true, bounds);
  }

  private String table() {
    return TableNaming.qualified(schema, TableNaming.tableName(users));
  }

  private static String key(String id) {
    return "\"" + id + "\"";
  }

  private static String doc(String id, int v) {
    return "{\"_id\": \"" + id + "\", \"v\": " + v + "}";
  }

  /** What a lane's merge does to one row: a newer document and position. */
  private void laneUpdate(Connection lane, String id, long position) throws SQLException {
    try (PreparedStatement ps = lane.prepareStatement("update " + table()
        + " set doc = ?::jsonb, \"_position\" = ? where \"_id\" = ? and \"_position\" < ?")) {
      ps.setString(1, doc(id, (int) position));
      ps.setString(2, pos(position).data());
      ps.setString(3, key(id));
      ps.setString(4, pos(position).data());
      assertEquals(1, ps.executeUpdate(), "the lane updated " + id);
    }
  }

  @Test
  void aLaneThatLocksRowsInTheOtherOrderThanTheCopyNeverDeadlocksAndWaitsLittle() throws Exception {
    try (PostgresRecordSink sink = builder().open()) {
      sink.write(List.of(insert(users, key("a"), doc("a", 1), 1), insert(users, key("b"), doc("b", 1), 1)));
      sink.commit();
    }
    long deadlockTimeoutMillis = deadlockTimeoutMillis();
    try (Connection lane = dataSource.getConnection();
        LockYieldingSink copy = copySink(LockYieldingSink.Bounds.DEFAULT)) {
      lane.setAutoCommit(false);
      int lanePid = pidOf(lane);
      laneUpdate(lane, "b", 10);

      // The copy's chunk holds a, b, c, d: it locks a, then waits for b, which the lane holds.
      CompletableFuture<Void> copied = CompletableFuture.runAsync(() -> {
        try {
          copy.write(List.of(insert(users, key("a"), doc("a", (int) COPY), COPY),
              insert(users, key("b"), doc("b", (int) COPY), COPY), insert(users, key("c"), doc("c", (int) COPY), COPY),
              insert(users, key("d"), doc("d", (int) COPY), COPY)));
          copy.commit();
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      awaitBlockedBy(lanePid, copied);

      // Now the lane wants a, which the copy holds while it waits: the cycle that deadlocked.
      long started = System.nanoTime();
      laneUpdate(lane, "a", 11);
      lane.commit();
      long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

      copied.get(60, TimeUnit.SECONDS);
      assertTrue(waitedMillis < deadlockTimeoutMillis / 2, "the lane waited " + waitedMillis
          + " ms for the copy, deadlock_timeout is " + deadlockTimeoutMillis + " ms");
      assertTrue(copy.retries() >= 1, "the copy gave way at least once");
      System.out.println("the lane waited " + waitedMillis + " ms; the copy gave way " + copy.retries() + " times");
    }
    Map<String, String> positions = positions();
    assertEquals(Map.of(key("a"), pos(11).data(), key("b"), pos(10).data(), key("c"), pos(COPY).data(),
        key("d"), pos(COPY).data()), positions, "the lane's writes kept, the copy's other rows there");
    assertEquals("11", valueOf("a"), "the lane's document of a");
    assertEquals("10", valueOf("b"), "the lane's document of b");
    assertEquals("5", valueOf("c"), "the copy's document of c");
  }

  /**
   * The other way round: a copy inserts a key (straight in) and commits while a batch lane's merge,
   * which saw no row for that key, inserts it too. The lane's insert meets the copy's row and
   * applies its newer record over it, as its update would have; a plain INSERT failed the batch
   * on the primary key (dev: the same batch five times in a row during a first snapshot).
   */
  /**
   * Issue 48: between two transactions a copy asked to give way (a batch waits for connections)
   * first closes its own, so the batch can have them, then goes on.
   */
  @Test
  void betweenTwoTransactionsACopyHandsItsConnectionOverToAWaitingBatch() throws Exception {
    PostgresSinkBuilder builder = builder();
    List<Long> heldWhileGivingWay = new ArrayList<>();
    AtomicBoolean batchWaits = new AtomicBoolean(true);
    GiveWay giveWay = new GiveWay() {
      @Override
      public boolean wanted() {
        return batchWaits.getAndSet(false);
      }

      @Override
      public void giveWay() {
        heldWhileGivingWay.add(otherConnections());
      }
    };
    try (LockYieldingSink copy = LockYieldingSink.of(builder, "the copy", true, giveWay)) {
      copy.write(List.of(insert(users, key("a"), doc("a", (int) COPY), COPY)));
      copy.commit();
      copy.write(List.of(insert(users, key("b"), doc("b", (int) COPY), COPY)));
      copy.commit();
      assertEquals(1, copy.givenWay());
    }
    assertEquals(List.of(0L), heldWhileGivingWay, "the copy held no connection while the batch had its turn");
    assertEquals(Set.of(key("a"), key("b")), positions().keySet());
  }

  /** Connections to the test's database other than the one asking. */
  private static long otherConnections() {
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select count(*) from pg_stat_activity where datname = current_database()"
            + " and pid <> pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aLaneInsertingAKeyACopyInsertedMeanwhileAppliesOverItInsteadOfFailing() throws Exception {
    try (PostgresRecordSink sink = builder().open()) {
      sink.write(List.of(insert(users, key("z"), doc("z", 1), 1)));
      sink.commit();
    }
    try (Connection copy = dataSource.getConnection(); PostgresRecordSink lane = builder().open()) {
      copy.setAutoCommit(false);
      try (PreparedStatement ps = copy.prepareStatement("insert into " + table()
          + " (\"_id\", doc, \"_position\", \"_commit_time\") values (?, ?::jsonb, ?, now())")) {
        ps.setString(1, key("k"));
        ps.setString(2, doc("k", (int) COPY));
        ps.setString(3, pos(COPY).data());
        ps.executeUpdate();
      }
      CompletableFuture<Void> merged = CompletableFuture.runAsync(() -> {
        try {
          lane.write(List.of(insert(users, key("k"), doc("k", 12), 12)));
          lane.commit();
        } catch (Exception e) {
          throw new RuntimeException(e);
        }
      });
      awaitBlockedBy(pidOf(copy), merged);
      copy.commit();
      merged.get(60, TimeUnit.SECONDS);
    }
    assertEquals(pos(12).data(), positions().get(key("k")), "the lane's newer record is applied over the copy's row");
    assertEquals("12", valueOf("k"));
  }

  @Test
  void aCopyThatNeverGetsItsLockGivesUpWithATransientFailureAfterItsBound() throws Exception {
    try (PostgresRecordSink sink = builder().open()) {
      sink.write(List.of(insert(users, key("a"), doc("a", 1), 1)));
      sink.commit();
    }
    LockYieldingSink.Bounds three = new LockYieldingSink.Bounds(3, Duration.ofMinutes(1), Duration.ofMillis(1),
        Duration.ofMillis(5));
    try (Connection lane = dataSource.getConnection(); LockYieldingSink copy = copySink(three)) {
      lane.setAutoCommit(false);
      laneUpdate(lane, "a", 10);

      CompletableFuture<Exception> attempt = CompletableFuture.supplyAsync(() -> {
        try {
          copy.write(List.of(insert(users, key("a"), doc("a", (int) COPY), COPY)));
          copy.commit();
          return null;
        } catch (Exception e) {
          return e;
        }
      });
      Exception thrown;
      try {
        thrown = attempt.get(30, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        lane.rollback(); // lets the copy go, so the test ends
        throw new AssertionError("the copy waited for the lock for 30 s instead of giving up", e);
      }

      DestinationLockedException failed = assertInstanceOf(DestinationLockedException.class, thrown);

      assertTrue(failed.getMessage().contains("the copy kept finding its rows locked"), failed.getMessage());
      assertTrue(failed.getMessage().contains("3 times"), failed.getMessage());
      assertEquals("55P03", ((SQLException) failed.getCause()).getSQLState(), "the last try timed out on the lock");
      assertEquals(2, copy.retries());
      lane.commit();
    }
    assertEquals(Map.of(key("a"), pos(10).data()), positions());
  }

  @Test
  void anAbortFromAnotherThreadEndsACopyWaitingForALock() throws Exception {
    abortsACopyThatGivesWay(LockYieldingSink.Bounds.DEFAULT, false);
  }

  @Test
  void anAbortFromAnotherThreadEndsACopyPausingBeforeItsNextTry() throws Exception {
    Duration hour = Duration.ofHours(1);
    abortsACopyThatGivesWay(new LockYieldingSink.Bounds(10, hour, hour, hour), true);
  }

  /** Aborts (as the activity's heartbeat does once it is cancelled) a copy that the lane's lock holds up. */
  private void abortsACopyThatGivesWay(LockYieldingSink.Bounds bounds, boolean inPause) throws Exception {
    try (PostgresRecordSink sink = builder().open()) {
      sink.write(List.of(insert(users, key("a"), doc("a", 1), 1)));
      sink.commit();
    }
    try (Connection lane = dataSource.getConnection(); LockYieldingSink copy = copySink(bounds)) {
      lane.setAutoCommit(false);
      laneUpdate(lane, "a", 10);
      CompletableFuture<Exception> attempt = CompletableFuture.supplyAsync(() -> {
        try {
          copy.write(List.of(insert(users, key("a"), doc("a", (int) COPY), COPY)));
          copy.commit();
          return null;
        } catch (Exception e) {
          return e;
        }
      });
      if (inPause) {
        // Its first try timed out on the lock; it now pauses (at least half an hour) before the next.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (copy.retries() == 0 && !attempt.isDone() && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        assertEquals(1, copy.retries(), "the copy gave way once and pauses");
      } else {
        awaitBlockedBy(pidOf(lane), attempt);
      }

      copy.abort(new IllegalStateException("cancelled"));

      Exception thrown;
      try {
        thrown = attempt.get(30, TimeUnit.SECONDS);
      } catch (TimeoutException e) {
        lane.rollback();
        throw new AssertionError("the copy went on after the abort", e);
      }
      assertInstanceOf(SinkAbortedException.class, thrown);
      lane.commit();
    }
    assertEquals(Map.of(key("a"), pos(10).data()), positions());
  }

  @Test
  void aPartitionInterruptedAfterSomeChunksIsCopiedAgainToTheSameRows() throws Exception {
    SnapshotCopier copier = new SnapshotCopier(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(), 3,
        PoisonEvents.NONE, ColumnProjections.NONE);
    String tableName = TableNaming.tableName(users);
    builder(); // sets the table up
    RuntimeException crash = new RuntimeException("worker lost");
    AtomicInteger chunks = new AtomicInteger();
    try (LockYieldingSink copy = copySink(LockYieldingSink.Bounds.DEFAULT)) {
      RuntimeException thrown = assertThrows(RuntimeException.class, () -> copier.copy(cursor(10), users, tableName, pos(COPY),
          Records.T0, copy, (documents, bytes) -> {
            if (chunks.incrementAndGet() == 2) {
              throw crash;
            }
          }));
      assertSame(crash, thrown);
    }
    Map<String, String> afterCrash = rowVersions();
    assertEquals(6, afterCrash.size(), "the two chunks committed before the crash stay");

    // A batch writes one of the copied rows before the retry: the retry must not undo it.
    try (Connection lane = dataSource.getConnection()) {
      lane.setAutoCommit(false);
      laneUpdate(lane, "4", 20);
      lane.commit();
    }
    Map<String, String> beforeRetry = rowVersions();

    try (LockYieldingSink copy = copySink(LockYieldingSink.Bounds.DEFAULT)) {
      assertEquals(10, copier.copy(cursor(10), users, tableName, pos(COPY), Records.T0, copy, (d, b) -> {})
          .documents());
    }

    Map<String, String> positions = positions();
    assertEquals(10, positions.size(), "every document once");
    for (int i = 0; i < 10; i++) {
      String key = new IdKeyRenderer().render(new BsonString(String.valueOf(i)));
      assertEquals(pos(i == 4 ? 20 : COPY).data(), positions.get(key), key);
    }
    Map<String, String> afterRetry = rowVersions();
    for (Map.Entry<String, String> row : beforeRetry.entrySet()) {
      assertEquals(row.getValue(), afterRetry.get(row.getKey()), "row " + row.getKey() + " not written again");
    }
  }

  /** Ten documents with string ids "0" to "9", so their keys are those of {@link #laneUpdate}. */
  private static DocumentCursor cursor(int n) {
    Deque<RawBsonDocument> queue = new ArrayDeque<>();
    for (int i = 0; i < n; i++) {
      BsonDocument doc = new BsonDocument("_id", new BsonString(String.valueOf(i))).append("v", new BsonInt32(i));
      queue.add(RawBsonDocument.parse(doc.toJson()));
    }
    return new DocumentCursor() {
      @Override
      public RawBsonDocument next() {
        return queue.poll();
      }

      @Override
      public void close() {}
    };
  }

  private Map<String, String> positions() throws SQLException {
    return query("select \"_id\", \"_position\" from " + table());
  }

  /** Each row's version: its system column xmin changes whenever the row is written. */
  private Map<String, String> rowVersions() throws SQLException {
    return query("select \"_id\", xmin::text || ' ' || \"_position\" from " + table());
  }

  private String valueOf(String id) throws SQLException {
    return query("select \"_id\", doc ->> 'v' from " + table()).get(key(id));
  }

  private Map<String, String> query(String sql) throws SQLException {
    Map<String, String> rows = new TreeMap<>();
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        rows.put(rs.getString(1), rs.getString(2));
      }
    }
    return rows;
  }

  private static int pidOf(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery("select pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private long deadlockTimeoutMillis() throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select setting::bigint from pg_settings where name = 'deadlock_timeout'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Polls (each poll a round trip, no sleeping) until a backend waits for a lock {@code pid} holds. */
  private void awaitBlockedBy(int pid, CompletableFuture<?> copy) throws SQLException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(
            "select count(*) from pg_stat_activity where ? = any(pg_blocking_pids(pid))")) {
      ps.setInt(1, pid);
      while (System.nanoTime() < deadline && !copy.isDone()) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getInt(1) > 0) {
            return;
          }
        }
      }
    }
    throw new AssertionError("the copy never waited for the lane's lock" + (copy.isDone() ? " (it ended)" : ""));
  }
}
