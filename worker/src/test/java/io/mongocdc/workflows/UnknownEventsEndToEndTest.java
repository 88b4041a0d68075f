package io.mongocdc.workflows;

import static io.mongocdc.workflows.model.BatchFigures.EVENTS_SKIPPED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.InMemoryCatalog;
import io.mongocdc.activities.InMemoryDestination;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 33, events of types the mirror does not know, as an operator meets them: a stream with a
 * {@code createIndexes} and an invented {@code futureOp} stops the mirror under the default policy,
 * naming the type; an edit to {@code SKIP} and a resume pass over both, count them per type in
 * status and the batch figures, and lose no data change.
 */
class UnknownEventsEndToEndTest {

  private static final int ORDERS = 30;

  private final ManualClock clock = new ManualClock();
  private final List<RawBsonDocument> events = events();
  private final ScriptedChangeStream stream =
      ScriptedChangeStream.builder().events(events).clock(clock, Duration.ofSeconds(1)).build();
  private final InMemoryDestination destination = new InMemoryDestination();
  private final InMemoryCatalog catalog = new InMemoryCatalog();
  @RegisterExtension
  final WorkflowTestExtension servers = WorkflowTestExtension.serversOnly();
  private final WorkerEnvironment flow = servers.start().startWorker(Fixtures.peers(),
      Fixtures.inMemoryPorts(destination, catalog, stream),
      Fixtures.quickPulls(), clock);

  /** Inserts of orders 0-29, a createIndexes after order 9 and a futureOp after order 19. */
  private static List<RawBsonDocument> events() {
    ChangeEvents changes = new ChangeEvents();
    List<RawBsonDocument> out = new ArrayList<>();
    for (int id = 0; id < ORDERS; id++) {
      out.add(changes.insert(Fixtures.ORDERS, new BsonDocument("_id", new BsonInt32(id))));
      if (id == 9) {
        out.add(changes.ofType("createIndexes", Fixtures.ORDERS));
      } else if (id == 19) {
        out.add(changes.ofType("futureOp", Fixtures.ORDERS));
      }
    }
    return out;
  }

  private static MirrorConfig mirror() {
    return Fixtures.orders(MirrorSettings.defaults().toBuilder().batchSize(1_000).idleTimeoutSeconds(3)
        .decodeWorkers(2).chunkSize(4).snapshot(SnapshotSettings.off()).build());
  }

  @Test
  void theDefaultStopsAtAnUnknownTypeNamingItAndSkipPassesOverEveryOneAndCountsThem() throws Exception {
    CdcFlowWorkflow workflow = flow.start(mirror());

    MirrorStatus failed = WorkerEnvironment.awaitStatus(workflow, s -> s.state() == MirrorPhase.FAILED);
    // The pull fails as soon as any chunk fails to decode, so the error names one of the two.
    assertTrue((failed.lastError().contains("unknown operationType 'createIndexes' on shop.orders")
        || failed.lastError().contains("unknown operationType 'futureOp' on shop.orders"))
        && failed.lastError().contains("unknownEventPolicy"), failed.lastError());
    assertTrue(destination.rows("public.orders").size() <= 10, "nothing after the createIndexes is applied");

    workflow.edit(Map.of("unknownEventPolicy", "SKIP"));
    workflow.resume();
    catalog.awaitCheckpoint("orders", StreamPosition.after(stream.tokenOf(events.size() - 1))::equals,
        Duration.ofSeconds(30));

    assertEquals(ORDERS, destination.rows("public.orders").size(), "every order is in the destination");
    MirrorStatus status = WorkerEnvironment.awaitStatus(workflow,
        s -> s.totals().get(RECORDS_DELIVERED) == ORDERS && s.state() == MirrorPhase.RUNNING);
    assertEquals(Map.of("createIndexes", 1L, "futureOp", 1L), status.totals().get(EVENTS_SKIPPED));
    assertEquals(Map.of("createIndexes", 1L, "futureOp", 1L), catalog.batches("orders").stream()
        .map(batch -> batch.figures().get(EVENTS_SKIPPED)).reduce(Map.of(), UnknownEventsEndToEndTest::sum));
    workflow.terminate(null);
    flow.result("orders");
  }

  private static Map<String, Long> sum(Map<String, Long> a, Map<String, Long> b) {
    Map<String, Long> sum = new java.util.TreeMap<>(a);
    b.forEach((type, count) -> sum.merge(type, count, Long::sum));
    return sum;
  }
}
