package io.mongocdc.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.CommitResult;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The activities' catalog port on the real catalog: registration, monotonic commits, status, forget. */
class PostgresCheckpointCatalogTest {

  private static Catalog catalog;
  private static PostgresCheckpointCatalog port;

  @BeforeAll
  static void open() {
    catalog = Catalog.open(EmbeddedPostgresSupport.newDatabase("port"));
    port = new PostgresCheckpointCatalog(catalog);
  }

  private static MirrorConfig mirror(String name) {
    return new MirrorConfig(name, "orders-mongo", "warehouse-pg", "shop", List.of("orders"), "public",
        MirrorSettings.defaults());
  }

  private static Checkpoint token(long n) {
    return Checkpoint.afterToken(String.format("82%08X%08X2B0404", 1_000_000 + n, 1), 1_000_000 + n, 1);
  }

  private static BatchFigures figures(long records, String endReason) {
    return new BatchFigures(records, records, 0, records * 100, Map.of("shop.orders", records), 250, endReason, 1, null);
  }

  @Test
  void commitsMonotonicallyAndKeepsOneBatchRowPerBatch() {
    assertTrue(port.register(mirror("m1")).isEmpty());
    CommitResult first = port.commit("m1", 1, token(10), figures(5, "BATCH_SIZE"));
    CommitResult second = port.commit("m1", 2, token(20), figures(7, "IDLE_TIMEOUT"));
    CommitResult stale = port.commit("m1", 1, token(10), figures(5, "BATCH_SIZE"));

    assertTrue(first.advanced());
    assertTrue(second.advanced());
    assertFalse(stale.advanced(), "a replayed commit of an older batch never moves the checkpoint back");
    assertEquals(token(20), port.committed("m1").orElseThrow());
    assertEquals(token(20), port.register(mirror("m1")).orElseThrow(), "registering again returns the checkpoint");
    assertEquals(2, catalog.batches().recent("m1", 10).size());
    assertEquals("running", catalog.mirror("m1").orElseThrow().getStatus());
  }

  @Test
  void aBatchStoppedByAControlEventMarksTheMirrorPausedInTheCatalog() {
    port.register(mirror("m2"));
    port.commit("m2", 1, token(30), figures(3, "CONTROL_EVENT"));

    assertEquals("paused", catalog.mirror("m2").orElseThrow().getStatus());
    assertTrue(catalog.mirror("m2").orElseThrow().getLastError().contains("control event policy PAUSE"));
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
}
