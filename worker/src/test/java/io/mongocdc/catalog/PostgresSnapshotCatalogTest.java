package io.mongocdc.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.SnapshotCatalog.PlannedPartition;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.SnapshotPlan;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Snapshot plans and partition progress in the real catalog, and the snapshot_progress view. */
class PostgresSnapshotCatalogTest {

  private static final StreamPosition START = StreamPosition.atOperationTime(new BsonTimestamp(1_700_000_000, 2));
  private static final StreamPosition OTHER_START =
      StreamPosition.after(ResumeToken.of(String.format("82%08X%08X2B0404", 1_700_000_500, 1)));

  private static DataSource data;
  private static Catalog catalog;
  private static PostgresSnapshotCatalog port;

  @BeforeAll
  static void open() {
    data = EmbeddedPostgresSupport.newCatalogDatabase("snapcat");
    catalog = Catalog.open(data);
    port = new PostgresSnapshotCatalog(catalog);
  }

  private static void register(String name) {
    new PostgresCheckpointCatalog(catalog).register(new MirrorConfig(name, "src", "dst", "shop", List.of("orders"),
        "public", MirrorSettings.defaults()));
  }

  @Test
  void aPlanIsReusedForItsStartOnlyAndRemembersDonePartitions() {
    register("s1");
    assertTrue(port.plan("s1", "orders", START).isEmpty());

    SnapshotPlan planned = port.storePlan("s1", "orders", START, "{}", 300, List.of("r0", "r1", "r2"));
    assertEquals(new SnapshotPlan("orders", 3, List.of(0, 1, 2), 0, 300), planned);

    port.partitionStarted("s1", "orders", 1);
    port.partitionDone("s1", "orders", 1, 120, 12_000);
    port.partitionDone("s1", "orders", 1, 999, 999); // a late duplicate keeps the first figures

    assertEquals(new SnapshotPlan("orders", 3, List.of(0, 2), 120, 300), port.plan("s1", "orders", START).orElseThrow());
    assertEquals(new PlannedPartition("r1", true, 120, 12_000), port.partition("s1", "orders", 1));
    assertEquals(new PlannedPartition("r2", false, 0, 0), port.partition("s1", "orders", 2));
    assertTrue(port.plan("s1", "orders", OTHER_START).isEmpty(), "a plan for another start is not reused");

    SnapshotPlan replaced = port.storePlan("s1", "orders", OTHER_START, "{}", 10, List.of("whole"));
    assertEquals(new SnapshotPlan("orders", 1, List.of(0), 0, 10), replaced, "a new start copies everything again");
  }

  @Test
  void theCollectionIsDoneWithItsLastPartitionAndTheViewShowsProgress() throws Exception {
    register("s2");
    port.storePlan("s2", "orders", START, "{\"status\": \"active\"}", 200, List.of("a", "b"));
    port.partitionStarted("s2", "orders", 0);
    port.partitionDone("s2", "orders", 0, 70, 700);
    port.partitionStarted("s2", "orders", 1);

    assertEquals(List.of("copying", "1", "1", "70", "50.0"), progress("s2"));
    port.partitionDone("s2", "orders", 1, 60, 600);
    assertEquals(List.of("done", "2", "0", "130", "100.0"), progress("s2"));
  }

  @Test
  void anUnknownPartitionIsNamedAndForgettingTheMirrorRemovesItsPlans() {
    register("s3");
    port.storePlan("s3", "orders", START, "{}", 1, List.of("whole"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> port.partition("s3", "orders", 5));
    assertTrue(e.getMessage().contains("no snapshot partition 5 of orders"), e.getMessage());

    catalog.forgetMirror("s3");
    assertFalse(port.plan("s3", "orders", START).isPresent());
  }

  @Test
  void copiesFinishedNamesEachCollectionWhoseCopyIsDoneWithItsEnd() {
    register("s4");
    java.time.Instant before = java.time.Instant.now().minusSeconds(60);
    port.storePlan("s4", "orders", START, "{}", 10, List.of("a", "b"));
    port.storePlan("s4", "users", START, "{}", 10, List.of("whole"));
    port.partitionDone("s4", "orders", 0, 5, 50);
    port.partitionDone("s4", "users", 0, 5, 50);
    assertEquals(java.util.Set.of("users"), port.copiesFinished("s4").keySet(), "orders still copies");

    port.partitionDone("s4", "orders", 1, 5, 50);
    java.util.Map<String, java.time.Instant> finished = port.copiesFinished("s4");
    assertEquals(java.util.Set.of("orders", "users"), finished.keySet());
    assertTrue(finished.values().stream().allMatch(end -> end.isAfter(before)), finished.toString());

    port.storePlan("s4", "users", OTHER_START, "{}", 10, List.of("whole"));
    assertEquals(java.util.Set.of("orders"), port.copiesFinished("s4").keySet(), "users is copied again");
  }

  private static List<String> progress(String mirror) throws Exception {
    try (Connection c = data.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select state, partitions_done, partitions_started, documents_copied,"
            + " percent_done from mongo_cdc.snapshot_progress where mirror = '" + mirror + "'")) {
      assertTrue(rs.next());
      return List.of(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5));
    }
  }

  @Test
  void twoLastPartitionsFinishingTogetherMarkTheCollectionDone() throws Exception {
    register("s9");
    port.storePlan("s9", "orders", START, "{}", 200, List.of("r0", "r1"));
    // Both partitions finish while the test holds the collection's row: each must wait for it
    // (so they take turns), and the one that goes second must see the first's partition done.
    try (Connection holder = data.getConnection()) {
      holder.setAutoCommit(false);
      try (Statement lock = holder.createStatement()) {
        lock.execute("select 1 from mongo_cdc.snapshot_collections"
            + " where mirror_name = 's9' and collection = 'orders' for update");
      }
      ExecutorService pool = Executors.newFixedThreadPool(2);
      try {
        Future<?> first = pool.submit(() -> port.partitionDone("s9", "orders", 0, 100, 1_000));
        Future<?> second = pool.submit(() -> port.partitionDone("s9", "orders", 1, 100, 1_000));
        awaitSessionsWaitingOnALock(2);
        holder.commit();
        first.get(30, TimeUnit.SECONDS);
        second.get(30, TimeUnit.SECONDS);
      } finally {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
      }
    }
    try (Connection c = data.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select state, partitions_done from mongo_cdc.snapshot_progress"
            + " where mirror = 's9' and collection = 'orders'")) {
      assertTrue(rs.next());
      assertEquals(2, rs.getInt(2));
      assertEquals("done", rs.getString(1), "every partition is done, so is the collection");
    }
  }

  /** Polls the server until {@code sessions} sessions wait on a lock: a condition, not a timed guess. */
  private static void awaitSessionsWaitingOnALock(int sessions) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    try (Connection c = data.getConnection(); Statement st = c.createStatement()) {
      while (true) {
        try (ResultSet rs = st.executeQuery("select count(*) from pg_stat_activity where wait_event_type = 'Lock'"
            + " and datname = current_database()")) {
          rs.next();
          if (rs.getInt(1) >= sessions) {
            return;
          }
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the partitions never both waited on the collection's row");
        }
        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
      }
    }
  }
}
