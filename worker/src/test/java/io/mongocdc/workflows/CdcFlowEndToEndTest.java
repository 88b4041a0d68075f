package io.mongocdc.workflows;

import static io.mongocdc.workflows.model.BatchFigures.ATTEMPTS;
import static io.mongocdc.workflows.model.BatchFigures.FIRST_POSITION;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.MongoCredential;
import com.mongodb.MongoSecurityException;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.InMemoryCatalog.BatchRow;
import io.mongocdc.activities.InMemoryCatalog;
import io.mongocdc.activities.InMemoryDestination;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.source.ChangeStreamException;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.Gate;
import io.mongocdc.source.scripted.ManualClock;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.SnapshotSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.TreeMap;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The workflow with the real activities: PullRecords over a scripted change stream, an
 * in-memory destination and catalog with the contracts of the PostgreSQL ones.
 */
class CdcFlowEndToEndTest {

  private static final int EVENTS = 60;

  private final ManualClock clock = new ManualClock();
  private final List<RawBsonDocument> events = Fixtures.orderEvents(EVENTS);
  private final ScriptedChangeStream stream =
      ScriptedChangeStream.builder().events(events).clock(clock, Duration.ofSeconds(1)).build();
  private final InMemoryDestination destination = new InMemoryDestination();
  private final InMemoryCatalog catalog = new InMemoryCatalog();
  @RegisterExtension
  final WorkflowTestExtension servers = WorkflowTestExtension.serversOnly();
  private final WorkerEnvironment flow = servers.start().startWorker(Fixtures.peers(),
      Fixtures.inMemoryPorts(destination, catalog, stream),
      PullTuning.defaults().withProgressInterval(Duration.ofMillis(20)).withCommitInterval(10, 0).withShutdownTimeout(Duration.ofSeconds(10)), clock);

  private static MirrorConfig mirror() {
    // Batches of 40 events, chunks of 8, a sink commit once 10 records are staged.
    return Fixtures.orders(MirrorSettings.defaults().toBuilder().batchSize(40).idleTimeoutSeconds(3).maxBatchDurationSeconds(600).decodeWorkers(2).chunkSize(8).snapshot(SnapshotSettings.off()).build());
  }

  @Test
  void theDestinationEndsEqualToTheSourceAndAFailedAttemptResumesFromItsLastHeartbeat() throws Exception {
    // Event 35 fails once, after the sink committed 32 records (two commits of 16).
    Gate beforeFailure = stream.blockAt(35);
    stream.failAt(35, new ChangeStreamException("Prematurely reached end of stream", 0, true, null));
    CdcFlowWorkflow workflow = flow.start(mirror());
    assertTrue(beforeFailure.awaitReached(Duration.ofSeconds(20)));
    destination.awaitCommitted(32, Duration.ofSeconds(20));
    beforeFailure.release();

    StreamPosition last = StreamPosition.after(stream.tokenOf(EVENTS - 1));
    catalog.awaitCheckpoint("orders", last::equals, Duration.ofSeconds(30));

    assertEquals(expectedFinalState(), destination.rows("public.orders"));
    assertEquals(EVENTS, destination.recordsApplied(), "nothing lost");
    assertEquals(EVENTS, destination.recordsCommitted(), "nothing replayed: the retry resumed after the 32 delivered");
    assertTrue(stream.openedPositions().contains(StreamPosition.after(stream.tokenOf(31))),
        () -> "the retry resumed after the heartbeated checkpoint: " + stream.openedPositions());
    List<BatchRow> batches = catalog.batches("orders");
    assertEquals(1, batches.get(0).batchId());
    assertEquals(EVENTS, batches.get(0).figures().get(RECORDS_DELIVERED));
    assertEquals(2, batches.get(0).figures().get(ATTEMPTS));
    assertEquals(EVENTS, batches.get(0).figures().totalsOverTables().records(),
        "per operation, the 32 of the failed attempt (from its last heartbeat) and the 28 of the retry, once each");
    assertEquals(Fixtures.orderEvents(EVENTS).get(0).getDocument("_id").getString("_data").getValue(),
        batches.get(0).figures().get(FIRST_POSITION), "the batch's first record is the failed attempt's first");
    assertEquals(1, catalog.failedAttempts().size(), "the failed attempt left its trace: " + catalog.failedAttempts());
    for (int i = 0; i < batches.size(); i++) {
      assertEquals(i + 1, batches.get(i).batchId(), "one catalog row per batch, in order");
    }

    // At the batch boundary: idle batches end within milliseconds here, and the test server
    // rejects a workflow task that cancels an activity which completed meanwhile
    // (ACTIVITY_UNKNOWN) instead of retrying it at once as a real server does.
    workflow.terminate(null);
    MirrorStatus last2 = flow.result("orders");
    assertEquals(EVENTS, last2.totals().get(RECORDS_DELIVERED));
    assertEquals(MirrorPhase.TERMINATED, last2.state());
    assertNoSecretIn(flow.client.fetchHistory("mirror-orders").toJson(true), "history");
    assertNoSecretIn(new ObjectMapper().writeValueAsString(last2), "status");
  }

  /**
   * Issue 36, finding 12: with two apply lanes, one lane committed its part of a round and the
   * other then failed. The failed attempt's heartbeat counted the committed lane's records although
   * its checkpoint did not pass them, and the retry, replaying the round, counted them again.
   */
  @Test
  void aRoundOneLaneCommittedAndTheOtherFailedIsCountedOnceInTheCatalog() throws Exception {
    destination.lanes(2);
    // The first round commits on both lanes and moves the checkpoint; in the second, lane 1
    // commits its part and then lane 2 fails.
    CountDownLatch firstLaneCommittedTwice = new CountDownLatch(2);
    AtomicInteger secondLaneCommits = new AtomicInteger();
    destination.commitWith((sink, apply) -> {
      if (sink == 2 && secondLaneCommits.incrementAndGet() == 2) {
        assertTrue(firstLaneCommittedTwice.await(20, TimeUnit.SECONDS), "lane 1 commits its part of the round");
        throw new IllegalStateException("scripted: lane 2 lost its connection");
      }
      apply.run();
      if (sink == 1) {
        firstLaneCommittedTwice.countDown();
      }
    });
    CdcFlowWorkflow workflow = flow.start(mirror());

    StreamPosition last = StreamPosition.after(stream.tokenOf(EVENTS - 1));
    catalog.awaitCheckpoint("orders", last::equals, Duration.ofSeconds(30));

    assertEquals(expectedFinalState(), destination.rows("public.orders"));
    List<BatchRow> batches = catalog.batches("orders");
    assertEquals(2, batches.get(0).figures().get(ATTEMPTS), "the first attempt failed");
    assertEquals(batches.get(0).figures().totalsOverTables().records(), batches.get(0).figures().get(RECORDS_DELIVERED),
        "the failed attempt's records up to its checkpoint and the retry's, once each: " + batches);
    assertEquals(EVENTS, batches.stream().mapToLong(b -> b.figures().get(RECORDS_DELIVERED)).sum(),
        "every event once over the batches: " + batches);
    workflow.terminate(null);
    assertEquals(EVENTS, flow.result("orders").totals().get(RECORDS_DELIVERED));
  }

  @Test
  void anAuthenticationFailureLeavesTheMirrorFailedWithoutThePasswordInHistoryOrStatus() throws Exception {
    stream.failAt(0, new MongoSecurityException(
        MongoCredential.createCredential("cdc", "admin", Fixtures.SOURCE_PASSWORD.toCharArray()),
        "Exception authenticating MongoCredential{mechanism=SCRAM-SHA-256, userName='cdc'} to " + Fixtures.SOURCE_URI));
    CdcFlowWorkflow workflow = flow.start(mirror());

    MirrorStatus failed = WorkerEnvironment.awaitStatus(workflow, s -> s.state() == MirrorPhase.FAILED);
    assertTrue(failed.lastError().contains("[AuthenticationFailed]"), failed.lastError());
    assertTrue(failed.lastError().contains("cdc:***@db1.example"), failed.lastError());
    assertNoSecretIn(new ObjectMapper().writeValueAsString(failed), "status");
    assertFalse(catalog.failedAttempts().isEmpty());
    assertNoSecretIn(String.join("\n", catalog.failedAttempts()), "the catalog's failed attempts");
    assertNoSecretIn(String.valueOf(catalog.state("orders")), "the catalog's mirror state");
    assertEquals(MirrorPhase.FAILED, catalog.state("orders").phase());
    assertEquals(FailureTypes.AUTHENTICATION_FAILED, catalog.state("orders").failureType());

    workflow.terminate(null);
    flow.result("orders");
    assertNoSecretIn(flow.client.fetchHistory("mirror-orders").toJson(true), "history");
    flow.captureHistory("orders", flow.firstRunId, "end-to-end-authentication-failed");
  }

  private static void assertNoSecretIn(String text, String where) {
    assertFalse(text.contains(Fixtures.SOURCE_PASSWORD), () -> "the password leaked into " + where + ": " + text);
  }

  /** The source's final state, replayed from the events independently of the destination. */
  private Map<String, String> expectedFinalState() {
    IdKeyRenderer keys = new IdKeyRenderer();
    TranscodingJsonRenderer documents = TranscodingJsonRenderer.relaxed();
    Map<String, String> state = new TreeMap<>();
    for (RawBsonDocument event : events) {
      String key = keys.renderIdOf((RawBsonDocument) event.getDocument("documentKey"));
      switch (event.getString("operationType").getValue()) {
        case "delete" -> state.remove(key);
        default -> state.put(key, documents.render((RawBsonDocument) event.getDocument("fullDocument")));
      }
    }
    return state;
  }
}
