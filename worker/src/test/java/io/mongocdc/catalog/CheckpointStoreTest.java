package io.mongocdc.catalog;

import static io.mongocdc.workflows.model.BatchFigures.ATTEMPTS;
import static io.mongocdc.workflows.model.BatchFigures.BYTES_READ;
import static io.mongocdc.workflows.model.BatchFigures.END_REASON;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_QUARANTINED;
import static io.mongocdc.workflows.model.BatchFigures.TABLES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.CheckpointCommit.Outcome;
import io.mongocdc.ports.CheckpointCommit;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.TableFigures;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class CheckpointStoreTest {

  private static Catalog catalog;
  private static int mirrors;

  @BeforeAll
  static void open() {
    catalog = Catalog.open(EmbeddedPostgresSupport.newCatalogDatabase("ckpt"));
    catalog.upsertPeer("src", Catalog.PeerKind.MONGODB, "{}");
    catalog.upsertPeer("dst", Catalog.PeerKind.POSTGRES, "{}");
  }

  private static synchronized String newMirror() {
    String name = "m" + (++mirrors);
    catalog.createMirror(name, "src", "dst", null);
    return name;
  }

  /** A token whose order follows n. */
  private static StreamPosition at(long n) {
    return StreamPosition.after(ResumeToken.of(String.format("82%08X%08X2B0404", 1_000_000 + n, 1)));
  }

  @Test
  void firstCommitAndLoad() {
    String m = newMirror();
    assertTrue(catalog.checkpoints().load(m).isEmpty());
    StreamPosition start = StreamPosition.atOperationTime(new BsonTimestamp(1_700_000_000, 3));
    assertEquals(Outcome.APPLIED, catalog.checkpoints().commit(m, 0, start).outcome());
    assertEquals(start, catalog.checkpoints().load(m).orElseThrow().position());
    assertEquals(Outcome.APPLIED, catalog.checkpoints().commit(m, 1, at(10)).outcome());
    StoredCheckpoint c = catalog.checkpoints().load(m).orElseThrow();
    assertEquals(1, c.batchId());
    assertEquals(at(10), c.position());
  }

  @Test
  void committingTwiceOrAnOlderBatchLeavesTheNewest() {
    String m = newMirror();
    CheckpointStore store = catalog.checkpoints();
    assertEquals(Outcome.APPLIED, store.commit(m, 7, at(70)).outcome());
    assertEquals(Outcome.NOT_NEWER, store.commit(m, 7, at(70)).outcome());
    CheckpointCommit older = store.commit(m, 6, at(60));
    assertEquals(Outcome.NOT_NEWER, older.outcome());
    assertEquals(7, older.storedBatchId());
    assertEquals(at(70), store.load(m).orElseThrow().position());
    // the same batch with a later token (a retried batch that got further) moves it
    assertEquals(Outcome.APPLIED, store.commit(m, 7, at(75)).outcome());
    // a newer batch with an earlier token would move the stream back: refused
    assertEquals(Outcome.POSITION_BEHIND, store.commit(m, 8, at(71)).outcome());
    StoredCheckpoint c = store.load(m).orElseThrow();
    assertEquals(7, c.batchId());
    assertEquals(at(75), c.position());
  }

  @Test
  void racingCommitsLeaveTheNewer() throws Exception {
    String m = newMirror();
    CheckpointStore store = catalog.checkpoints();
    int rounds = 100;
    CyclicBarrier barrier = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (int thread = 0; thread < 2; thread++) {
        int me = thread;
        futures.add(
            pool.submit(
                () -> {
                  for (int r = 1; r <= rounds; r++) {
                    barrier.await(30, TimeUnit.SECONDS);
                    // thread 0 commits the newer batch on even rounds, thread 1 on odd rounds
                    long batch = 2L * r + ((r + me) % 2);
                    store.commit(m, batch, at(batch));
                    barrier.await(30, TimeUnit.SECONDS);
                    StoredCheckpoint c = store.load(m).orElseThrow();
                    if (c.batchId() != 2L * r + 1 || !c.position().equals(at(2L * r + 1))) {
                      throw new AssertionError("round " + r + " left " + c);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(2L * rounds + 1, store.load(m).orElseThrow().batchId());
  }

  @Test
  void batchHistoryIsRecordedOnceAndCountersAddUp() {
    String m = newMirror();
    Instant t = Instant.parse("2026-01-01T00:00:00Z");
    BatchReport running = new BatchReport(m, 1, t, null, null, null, BatchFigures.none());
    BatchReport done = new BatchReport(m, 1, t, t.plusSeconds(1), null, null, BatchFigures.zero()
        .with(RECORDS_DELIVERED, 10).with(BYTES_READ, 1000).with(END_REASON, "IDLE").with(ATTEMPTS, 1)
        .with(TABLES, Map.of("db.c", new TableFigures("db.c", 4, 3, 2, 1, 1000))).with(RECORDS_QUARANTINED, 0));
    assertTrue(catalog.batches().record(running));
    assertTrue(catalog.batches().record(done));
    assertFalse(catalog.batches().record(done), "a replayed report changes nothing");
    assertEquals(10, catalog.batches().recent(m, 5).get(0).getRecords());
    Long records =
        catalog
            .dsl()
            .select(io.mongocdc.catalog.jooq.Tables.TABLE_COUNTERS.RECORDS)
            .from(io.mongocdc.catalog.jooq.Tables.TABLE_COUNTERS)
            .where(io.mongocdc.catalog.jooq.Tables.TABLE_COUNTERS.MIRROR_NAME.eq(m))
            .fetchOne(0, Long.class);
    assertEquals(10L, records);
  }
}
