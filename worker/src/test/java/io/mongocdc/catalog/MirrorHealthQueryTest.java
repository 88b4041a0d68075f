package io.mongocdc.catalog;

import static io.mongocdc.workflows.model.BatchFigures.ATTEMPTS;
import static io.mongocdc.workflows.model.BatchFigures.END_REASON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.MirrorHealth;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.OplogSpan;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The catalog's view of every mirror's health, which the alert rules' gauges publish. */
class MirrorHealthQueryTest {

  private static final long CHECKPOINT_SECONDS = 1_700_000_000;

  private static Catalog catalog;
  private static PostgresCheckpointCatalog port;

  @BeforeAll
  static void open() {
    catalog = Catalog.open(EmbeddedPostgresSupport.newCatalogDatabase("health"));
    port = new PostgresCheckpointCatalog(catalog);
  }

  private static MirrorConfig mirror(String name) {
    return new MirrorConfig(name, "orders-mongo", "warehouse-pg", "shop", List.of("orders"), "public",
        MirrorSettings.defaults());
  }

  private static StreamPosition token(long seconds) {
    return StreamPosition.after(ResumeToken.of(String.format("82%08X%08X2B0404", seconds, 1)));
  }

  private static Map<String, MirrorHealth> health() {
    return port.mirrorHealth().stream().collect(Collectors.toMap(MirrorHealth::mirror, Function.identity()));
  }

  @Test
  void readsStateCheckpointOplogQuarantineAndTheLastFinishedVerify() {
    port.register(mirror("healthy"));
    port.commit("healthy", 1, token(CHECKPOINT_SECONDS), BatchFigures.zero().with(END_REASON, "IDLE_TIMEOUT")
        .with(ATTEMPTS, 1)
        );
    Instant observed = Instant.parse("2024-01-01T00:00:00Z");
    port.recordOplogSpan("healthy", new OplogSpan(CHECKPOINT_SECONDS - 3_600, CHECKPOINT_SECONDS + 60), observed);
    port.register(mirror("broken"));
    port.recordState(new MirrorStateChange("broken", MirrorPhase.FAILED, "history lost", "gone",
        "ChangeStreamHistoryLost", 1, 1_700_000_100_000L, 1, mirror("broken"), null, null));
    catalog.dsl().execute("insert into mongo_cdc.quarantined_events (mirror_name, position, position_key, batch_id,"
        + " reason) values ('broken', 'p1', 'k1', 1, 'poison'), ('broken', 'p2', 'k2', 1, 'poison'),"
        + " ('broken', 'p3', 'k3', 1, 'poison')");
    catalog.dsl().execute("update mongo_cdc.quarantined_events set replayed_at = now() where position = 'p3'");
    // An older finished run with differences, the last finished one with 4 found and 1 repaired,
    // and a newer run still verifying: the last finished one counts.
    verifyRun("broken", "done", 9, 0);
    verifyRun("broken", "done", 4, 1);
    verifyRun("broken", "verifying", 50, 0);

    Map<String, MirrorHealth> health = health();
    MirrorHealth healthy = health.get("healthy");
    assertEquals(MirrorPhase.RUNNING, healthy.state());
    assertEquals(CHECKPOINT_SECONDS, healthy.committedClusterSeconds());
    assertTrue(healthy.checkpointAgeSeconds(Instant.now()) < 60, "committed just now");
    assertEquals(3_600 - 90, healthy.oplogHeadroomSeconds(observed.plusSeconds(90)), 0.001,
        "the headroom the span left, less the time since it was read");
    assertEquals(0, healthy.quarantinedEvents());
    assertNull(healthy.verifyDifferences(), "no verify has finished");

    MirrorHealth broken = health.get("broken");
    assertEquals(MirrorPhase.FAILED, broken.state());
    assertEquals(Instant.ofEpochMilli(1_700_000_100_000L), broken.stateSince());
    assertTrue(Double.isNaN(broken.checkpointAgeSeconds(Instant.now())), "no checkpoint yet");
    assertTrue(Double.isNaN(broken.oplogHeadroomSeconds(Instant.now())), "no span read yet");
    assertEquals(2, broken.quarantinedEvents(), "the replayed one is not counted");
    assertEquals(3, broken.verifyDifferences(), "the last finished run's differences less those it repaired");
  }

  @Test
  void theRunningCopysTimeLeftIsReckonedFromTheCatalogsSnapshotTables() {
    // Issue 48, item 4: a first snapshot of orders (4 partitions, about 4 000 documents) and items.
    port.register(mirror("copying"));
    PostgresSnapshotCatalog snapshots = new PostgresSnapshotCatalog(catalog);
    StreamPosition start = token(CHECKPOINT_SECONDS);
    snapshots.storePlan("copying", "orders", start, "{}", 4_000, List.of("r0", "r1", "r2", "r3"));
    snapshots.storePlan("copying", "items", start, "{}", 500, List.of("r0"));
    Instant planned = Instant.parse("2024-01-01T00:00:00Z");
    catalog.dsl().execute("update mongo_cdc.snapshot_collections set planned_at = ?::timestamptz"
        + " where mirror_name = 'copying'", planned.toString());
    assertTrue(Double.isNaN(health().get("copying").copySecondsLeft(planned.plusSeconds(30))),
        "no partition finished: unknown");

    snapshots.partitionDone("copying", "items", 0, 500, 5_000);
    snapshots.partitionDone("copying", "orders", 0, 1_000, 10_000);
    // items finished after the plan, so its documents count towards the rate: 1 500 in 30 s, 50 a
    // second; orders has 3 000 left.
    assertEquals(60, health().get("copying").copySecondsLeft(planned.plusSeconds(30)), 0.001);
    // No batch has committed: the headroom is the copy's start's, where the stream will start.
    port.recordOplogSpan("copying", new OplogSpan(CHECKPOINT_SECONDS - 600, CHECKPOINT_SECONDS + 30), planned);
    assertEquals(600 - 30, health().get("copying").oplogHeadroomSeconds(planned.plusSeconds(30)), 0.001);

    for (int partition = 1; partition < 4; partition++) {
      snapshots.partitionDone("copying", "orders", partition, 1_000, 10_000);
    }
    assertEquals(0, health().get("copying").copySecondsLeft(planned.plusSeconds(60)), 0.001, "every copy done");
    port.register(mirror("never-copied"));
    assertEquals(0, health().get("never-copied").copySecondsLeft(Instant.now()), 0.001, "no copy under way");
  }

  @Test
  void theGaugePublishesTheCopysTimeLeftAtEachScrape() {
    Instant planned = Instant.parse("2024-01-01T00:00:00Z");
    MirrorHealth copying = new MirrorHealth("orders", MirrorPhase.SNAPSHOTTING, planned, null, null, null, null, 0,
        null, List.of(new io.mongocdc.workflows.model.SnapshotProgress("orders", null,
            io.mongocdc.workflows.model.SnapshotProgress.State.COPYING, 4, 1, 1_000, 4_000,
            planned.toEpochMilli(), null)));
    io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    java.time.Clock clock = java.time.Clock.fixed(planned.plusSeconds(10), java.time.ZoneOffset.UTC);
    try (io.mongocdc.metrics.MirrorHealthMetrics metrics =
        new io.mongocdc.metrics.MirrorHealthMetrics(registry, () -> List.of(copying), clock)) {
      metrics.refresh();
      // 1 000 documents in 10 s, 3 000 left.
      assertEquals(30, registry.get("mongo_cdc_catalog_snapshot_seconds_left").tags("mirror", "orders").gauge()
          .value(), 0.001);
    }
  }

  private static void verifyRun(String mirror, String state, long different, long repaired) {
    long run = ((Number) catalog.dsl().fetchValue("insert into mongo_cdc.verify_runs (mirror_name, workflow_run_id,"
        + " state) values (?, ?, ?) returning run_id", mirror, UUID.randomUUID().toString(), state)).longValue();
    catalog.dsl().execute("insert into mongo_cdc.verify_ranges (run_id, range_no, collection, id_range, state,"
        + " missing, extra, different, unsettled, repaired) values (?, 0, 'orders', '{}', 'done', 0, 0, ?, 7, ?)",
        run, different, repaired);
  }
}
