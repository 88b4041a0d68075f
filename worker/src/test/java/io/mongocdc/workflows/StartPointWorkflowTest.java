package io.mongocdc.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.InMemoryCatalog;
import io.mongocdc.activities.InMemoryDestination;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ManualClock;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.temporal.client.WorkflowFailedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 33, start points: a new mirror starts at a chosen operation time or after a stored resume
 * token, applies the changes from there and nothing before, and says where it started; a point the
 * source's history does not hold (gone from it, or not reached yet) is refused before any table is
 * created or the catalog knows the mirror.
 */
class StartPointWorkflowTest {

  private static final int ORDERS = 30;
  /** The source's history begins with order 5's insert: the events before it are gone. */
  private static final int OLDEST_HELD = 5;

  private final ManualClock clock = new ManualClock();
  private final List<RawBsonDocument> events = Fixtures.orderInserts(ORDERS);
  private final ScriptedChangeStream stream =
      ScriptedChangeStream.builder().events(events).clock(clock, Duration.ofSeconds(1)).build();
  private final List<StreamPosition> probed = new ArrayList<>();
  private final InMemoryDestination destination = new InMemoryDestination();
  private final InMemoryCatalog catalog = new InMemoryCatalog();
  @RegisterExtension
  final WorkflowTestExtension servers = WorkflowTestExtension.serversOnly();
  private final WorkerEnvironment flow = servers.start().startWorker(Fixtures.peers(),
      Fixtures.inMemoryPorts(destination, catalog, historySince(OLDEST_HELD),
          StreamPosition.after(stream.tokenOf(ORDERS - 1))),
      Fixtures.quickPulls(), clock);

  /** The stream as a server with an oplog that begins at event {@code oldest} opens it. */
  private ChangeStreamOpener historySince(int oldest) {
    BsonTimestamp oldestTime = events.get(oldest).getTimestamp("clusterTime");
    return position -> {
      synchronized (probed) {
        probed.add(position);
      }
      if (position.clusterTime().compareTo(oldestTime) < 0) {
        throw new ChangeStreamHistoryLostException("Resume of change stream was not possible, as the resume point"
            + " may no longer be in the oplog", 286, null);
      }
      return stream.open(position);
    };
  }

  private static MirrorConfig mirror(SnapshotSettings snapshot) {
    return Fixtures.orders(Fixtures.smallSettings().toBuilder().snapshot(snapshot).build());
  }

  private BsonTimestamp timeOf(int event) {
    return events.get(event).getTimestamp("clusterTime");
  }

  private Set<String> orderIds() {
    return new TreeSet<>(destination.rows("public.orders").keySet());
  }

  private static Set<String> ids(int from, int to) {
    Set<String> ids = new TreeSet<>();
    for (int id = from; id < to; id++) {
      ids.add(String.valueOf(id));
    }
    return ids;
  }

  private void awaitEverything(CdcFlowWorkflow workflow) throws InterruptedException {
    catalog.awaitCheckpoint("orders", StreamPosition.after(stream.tokenOf(ORDERS - 1))::equals, Duration.ofSeconds(30));
    workflow.terminate(null);
    flow.result("orders");
  }

  @Test
  void aMirrorStartedAtAnOperationTimeAppliesTheChangesFromThereOnlyAndSaysWhereItStarted() throws Exception {
    BsonTimestamp at = timeOf(12);
    Checkpoint start = Checkpoint.atOperationTime(at.getTime(), at.getInc());

    CdcFlowWorkflow workflow = flow.start(CdcFlowInput.newMirror(mirror(SnapshotSettings.off()), start));
    MirrorStatus status = WorkerEnvironment.awaitStatus(workflow, s -> s.startedFrom() != null);

    assertEquals(start, status.startedFrom());
    awaitEverything(workflow);
    assertEquals(ids(12, ORDERS), orderIds(), "order 12's insert is at the start point, inclusive; none before it");
    flow.captureWhenClosed("orders", "start-at-operation-time");
  }

  @Test
  void aMirrorStartedAfterAStoredTokenAppliesTheChangesAfterItsEventAndReadsItsTime() throws Exception {
    // As another tool stored it: the token alone, no cluster time beside it.
    Checkpoint start = Checkpoint.afterToken(stream.tokenOf(19).data(), 0, 0);

    CdcFlowWorkflow workflow = flow.start(CdcFlowInput.newMirror(mirror(SnapshotSettings.off()), start));
    MirrorStatus status = WorkerEnvironment.awaitStatus(workflow, s -> s.startedFrom() != null);

    BsonTimestamp time = timeOf(19);
    assertEquals(Checkpoint.afterToken(stream.tokenOf(19).data(), time.getTime(), time.getInc()), status.startedFrom(),
        "the token's cluster time, read from the token");
    awaitEverything(workflow);
    assertEquals(ids(20, ORDERS), orderIds());
  }

  @Test
  void aPointTheHistoryNoLongerHoldsIsRefusedBeforeAnyTableOrCatalogRowExists() {
    BsonTimestamp gone = timeOf(OLDEST_HELD - 2);

    flow.start(CdcFlowInput.newMirror(mirror(SnapshotSettings.off()),
        Checkpoint.atOperationTime(gone.getTime(), gone.getInc())));
    WorkflowFailedException failed = assertThrows(WorkflowFailedException.class, () -> flow.result("orders"));

    String message = failed.getCause().getMessage();
    assertTrue(message.contains("start point refused") && message.contains("no longer holds the start point"),
        message);
    assertEquals(List.of(), destination.createdTables(), "no table was created");
    assertTrue(catalog.registered("orders").isEmpty(), "the catalog does not know the mirror");
  }

  @Test
  void aPointLaterThanTheSourcesTimeNowIsRefusedWithoutOpeningTheStream() {
    BsonTimestamp last = timeOf(ORDERS - 1);

    flow.start(CdcFlowInput.newMirror(mirror(SnapshotSettings.off()),
        Checkpoint.atOperationTime(last.getTime() + 3_600, 0)));
    WorkflowFailedException failed = assertThrows(WorkflowFailedException.class, () -> flow.result("orders"));

    assertTrue(failed.getCause().getMessage().contains("later than the source's time now"),
        failed.getCause().getMessage());
    synchronized (probed) {
      assertEquals(List.of(), probed);
    }
    assertEquals(List.of(), destination.createdTables());
  }

  @Test
  void aStartPointWithTheSnapshotOnCopiesFirstAndStreamsFromThePoint() throws Exception {
    BsonTimestamp at = timeOf(OLDEST_HELD);
    Checkpoint start = Checkpoint.atOperationTime(at.getTime(), at.getInc());

    CdcFlowWorkflow workflow = flow.start(CdcFlowInput.newMirror(mirror(SnapshotSettings.defaults()), start));
    MirrorStatus status = WorkerEnvironment.awaitStatus(workflow,
        s -> s.startedFrom() != null && s.state() == MirrorPhase.RUNNING);

    assertEquals(start, status.startedFrom());
    assertEquals(start, status.snapshots().get(0).position(), "the copy's rows carry the start point's position");
    awaitEverything(workflow);
    assertEquals(ids(OLDEST_HELD, ORDERS), orderIds());
  }
}
