package io.mongocdc.verify;

import static io.mongocdc.testing.WorkerEnvironment.awaitStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.console.TemporalMirrorActions;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.catalog.PostgresSnapshotCatalog;
import io.mongocdc.catalog.PostgresTableOwnership;
import io.mongocdc.catalog.VerifyStore;
import io.mongocdc.cli.CliContext;
import io.mongocdc.cli.MongoCdc;
import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.destination.PostgresMirrorDestination;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.RevealedChangeStream;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.source.scripted.Gate;
import io.mongocdc.source.scripted.ScriptedSnapshotSource;
import io.mongocdc.testing.ShortHeartbeatTimeout;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.VerifyMirrorWorkflow;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.SnapshotProgress;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.mongocdc.workflows.model.StopRequest;
import io.mongocdc.workflows.model.TypedColumn;
import io.mongocdc.workflows.model.TypedColumnSettings;
import io.mongocdc.workflows.model.VerifyRequest;
import io.mongocdc.workflows.model.VerifyResult;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * Verify and repair end to end: the real mirror and verify workflows and activities, the
 * PostgreSQL destination and catalog, a scripted source whose documents keep changing. The
 * destination is tampered with behind the mirror's back (rows changed, deleted, added); verify
 * must find exactly those, not the changes still in flight, and repair must leave the
 * destination equal to the source.
 */
class VerifyWorkflowTest {

  private static final String SOURCE_PEER = "verify-mongo";
  private static final String DESTINATION_PEER = "verify-pg";
  private static final String DATABASE = "shop";
  private static final String ORDERS = "orders";
  private static final String ITEMS = "items";
  private static final BsonTimestamp START = new BsonTimestamp(1_700_000_000, 0);
  private static final AtomicInteger MIRRORS = new AtomicInteger();

  @RegisterExtension
  static final WorkflowTestExtension fixture = WorkflowTestExtension.withDatabases("verify", SOURCE_PEER, DESTINATION_PEER);

  @Test
  void everyKindOfDivergenceIsFoundNotTheChangesInFlightAndRepairLeavesNothingToFind() throws Exception {
    World world = new World(new Random(3));
    world.prefill(120);
    world.change(60);
    // Typed columns too: a repaired row gets them from the document read again, as a copy does.
    MirrorConfig mirror = world.mirror(false, List.of(ORDERS), new TypedColumnSettings(Map.of(ORDERS,
        List.of(new TypedColumn("n", "bigint", "n"), new TypedColumn("status", "text", "status"))), null));
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);

    // Behind the mirror's back, on documents no later change touches.
    List<BsonValue> untouched = world.untouchedFrom(20);
    Set<String> changed = world.tamperUpdate(mirror, untouched.subList(0, 3));
    Set<String> deleted = world.tamperDelete(mirror, untouched.subList(3, 5));
    Set<String> extra = world.tamperInsert(mirror, 2);

    // Writes go on: the source has 40 more changes the mirror has not seen when verify reads it.
    // They are revealed to the stream only once verify is judging, so the mirror is behind then.
    world.applyToSource(20, 60);
    world.idReads = new CountDownLatch(1);
    WorkflowStub verify = startVerify(mirror, false);
    assertTrue(world.idReads.await(60, TimeUnit.SECONDS), "verify never narrowed down to _ids");
    world.stream.reveal(60);
    VerifyResult found = verify.getResult(VerifyResult.class);

    VerifyResult.Collection orders = found.collections().get(0);
    assertEquals(3, orders.different(), found.toString());
    assertEquals(2, orders.missing(), found.toString());
    assertEquals(2, orders.extra(), found.toString());
    assertEquals(0, orders.unsettled(), found.toString());
    assertEquals(0, orders.repaired(), found.toString());
    assertEquals(world.snapshot.documents(ORDERS).size(), orders.sourceDocuments());
    assertTrue(found.ranges() >= 4, "120 documents in ranges of 30: " + found);
    Set<String> expected = new HashSet<>(changed);
    expected.addAll(deleted);
    expected.addAll(extra);
    assertEquals(expected, sampleIds(found.runId()), "the _ids recorded are the tampered ones");

    // More writes during the repair run, then a verify that repairs, then one that finds nothing.
    world.change(20);
    world.applyToSource(60, 80);
    world.stream.reveal(80);
    VerifyResult repaired = startVerify(mirror, true).getResult(VerifyResult.class);
    assertEquals(7, repaired.mismatches(), repaired.toString());
    assertEquals(7, repaired.repaired(), repaired.toString());
    // The command line runs the same workflow and prints the result as a table.
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = cli(world).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute("mirror", "verify", mirror.name(), "--no-progress");
    assertEquals(0, exit, err.toString());
    assertTrue(out.toString().contains("the destination matches the source"), out.toString());
    assertTrue(out.toString().lines().anyMatch(line -> line.startsWith("orders ") && line.matches(
        "orders +\\d+ +\\d+ +\\d+ +0 +0 +0 +0 +0")), out.toString());
    int refused = cli(world).setOut(new PrintWriter(new StringWriter())).setErr(new PrintWriter(err))
        .execute("mirror", "verify", mirror.name(), "--documents-per-second", "0");
    assertEquals(2, refused, err.toString());
    assertTrue(err.toString().contains("documentsPerSecond must be between 1 and"), err.toString());
    // The console's verify button starts the same workflow, through the same start.
    String started = new TemporalMirrorActions(fixture.temporal().client, WorkerEnvironment.TASK_QUEUE)
        .verify(mirror.name());
    assertTrue(started.startsWith("verify of mirror " + mirror.name() + " started"), started);
    VerifyResult fromConsole = fixture.temporal().client.newUntypedWorkflowStub(
        MirrorIds.verifyWorkflowId(mirror.name())).getResult(VerifyResult.class);
    assertEquals(0, fromConsole.mismatches(), fromConsole.toString());
    flow.terminate(new StopRequest(false));
    world.assertDestinationEqualsSource(mirror);
    assertEquals(0, world.rowsWhoseTypedColumnsDisagreeWithDoc(mirror), "typed columns of repaired rows");
  }

  /**
   * Issue 32, item 5: verify compares the source as the rules leave it, so a mirror with rules
   * verifies clean, still finds tampered rows, and repairs them under the rules.
   */
  @Test
  void aMirrorWithFieldRulesVerifiesCleanFindsTamperedRowsAndRepairsThemUnderTheRules() throws Exception {
    World world = new World(new Random(11));
    world.prefill(60);
    world.change(20);
    MirrorConfig plain = world.mirror();
    MirrorConfig mirror = plain.withSettings(plain.settings().apply(EditRequest.fromJson(Map.of("fieldRules",
        Map.of(ORDERS, Map.of("exclude", List.of("status"), "hash", List.of("n")))))));
    fixture.start().startWorker(new PeerRegistry() {
      @Override
      public io.mongocdc.ports.Peer resolve(String name) {
        return fixture.peers().resolve(name);
      }

      @Override
      public io.mongocdc.privacy.HashKey fieldHashKey() {
        return io.mongocdc.privacy.HashKey.of("the verify test's field hash key", "test");
      }
    }, world.ports());
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);

    world.idReads = new CountDownLatch(1);
    VerifyResult clean = startVerify(mirror, false).getResult(VerifyResult.class);
    assertEquals(0, clean.mismatches(), clean.toString());
    assertEquals(1, world.idReads.getCount(), "every range's digest matched: no document was read again");
    assertEquals(world.snapshot.documents(ORDERS).size(), clean.collections().get(0).sourceDocuments());

    world.tamperUpdate(mirror, world.untouchedFrom(20).subList(0, 3));
    VerifyResult repaired = startVerify(mirror, true).getResult(VerifyResult.class);
    assertEquals(3, repaired.mismatches(), repaired.toString());
    assertEquals(3, repaired.repaired(), repaired.toString());

    // A verify that started under rules the mirror no longer has does not repair under them.
    flow.edit(Map.of("fieldRules", Map.of(ORDERS, Map.of("exclude", List.of("note")))));
    // The rewrite the added rule starts must be over before the tamper: it reads a slice of rows,
    // then writes it back, and a tamper between the two (one that moves no _position) is lost.
    awaitStatus(flow, s -> catalogConfigHolds(mirror, "\"note\"") && catalogRewriteFinished(mirror));
    world.tamperUpdate(mirror, world.untouchedFrom(20).subList(3, 4));
    WorkflowStub stale = startVerify(mirror, true);
    Exception refused = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
        () -> stale.getResult(VerifyResult.class));
    String reasons = "";
    for (Throwable t = refused; t != null; t = t.getCause()) {
      reasons += t.getMessage() + " | ";
    }
    assertTrue(reasons.contains("its field rules changed since this verify started"), reasons);
    MirrorConfig current = mirror.withSettings(mirror.settings().apply(EditRequest.fromJson(Map.of("fieldRules",
        Map.of(ORDERS, Map.of("exclude", List.of("note")))))));
    VerifyResult again = startVerify(current, true).getResult(VerifyResult.class);
    assertEquals(1, again.repaired(), again.toString());
    flow.terminate(new StopRequest(false));
    try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select count(*) from " + world.table(mirror) + " where doc ? 'status'"
            + " or doc ? 'tampered' or not (doc->>'n' ~ '^[0-9a-f]{64}$')")) {
      rs.next();
      assertEquals(0, rs.getLong(1), "every row, repaired ones too, as the rules leave it");
    }
  }

  /** Whether the catalog shows a field rule rewrite of the mirror finished, with rows rewritten. */
  private static boolean catalogRewriteFinished(MirrorConfig mirror) {
    try (Connection c = fixture.catalog().getConnection();
        PreparedStatement st = c.prepareStatement("select field_rule_rewrite is null and field_rule_rewrite_rows > 0"
            + " from mongo_cdc.mirrors where name = ?")) {
      st.setString(1, mirror.name());
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether the catalog's configuration of the mirror holds {@code text}. */
  private static boolean catalogConfigHolds(MirrorConfig mirror, String text) {
    try (Connection c = fixture.catalog().getConnection();
        PreparedStatement st = c.prepareStatement("select config::text from mongo_cdc.mirrors where name = ?")) {
      st.setString(1, mirror.name());
      try (ResultSet rs = st.executeQuery()) {
        return rs.next() && rs.getString(1).contains(text);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aVerifyWhoseRangeDiesHalfWayResumesAndReadsNoJudgedRangeAgain() throws Exception {
    World world = new World(new Random(5));
    world.prefill(150);
    world.change(10);
    MirrorConfig mirror = world.mirror();
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 10);
    world.tamperUpdate(mirror, world.untouchedFrom(10).subList(0, 2));
    Map<IdRange, Integer> opensBeforeVerify = Map.copyOf(world.snapshot.openCounts(ORDERS));

    // The third range verify opens dies half-way, as with a lost worker; the range is judged again.
    world.letTwoRangeReadsPass();
    world.snapshot.failAt(ORDERS, null, 10, new IllegalStateException("worker lost mid-range (simulated)"));
    VerifyResult result = startVerify(mirror, false, 1).getResult(VerifyResult.class);
    flow.terminate(new StopRequest(false));

    assertEquals(2, result.mismatches(), result.toString());
    world.assertOnlyOneRangeReadAgain(opensBeforeVerify, result);
  }

  @Test
  void aVerifyWhoseWorkerStopsHalfWayResumesOnANewWorkerAndReadsNoJudgedRangeAgain() throws Exception {
    World world = new World(new Random(6));
    world.prefill(150);
    world.change(10);
    MirrorConfig mirror = world.mirror();
    // Not sticky, and heartbeats missed for 2 s count: the test server would otherwise keep the
    // workflows' tasks for the stopped worker for ever and wait 30 s for each of its activities.
    fixture.start(WorkerEnvironment.builder().stickyWorkflows(false)
        .interceptors(new ShortHeartbeatTimeout(Duration.ofSeconds(2))))
        .startWorker(fixture.peers(), world.ports());
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 10);
    world.tamperUpdate(mirror, world.untouchedFrom(10).subList(0, 2));
    Map<IdRange, Integer> opensBeforeVerify = Map.copyOf(world.snapshot.openCounts(ORDERS));

    // Verify's third range stops half-way; there its worker is stopped as a crash would stop it.
    Gate halfWay = new Gate();
    world.letTwoRangeReadsPass();
    world.snapshot.gateAt(ORDERS, null, 10, halfWay);
    WorkflowStub verify = startVerify(mirror, false, 1);
    assertTrue(halfWay.awaitReached(Duration.ofSeconds(60)), "verify reached its third range");
    fixture.temporal().stopWorker();
    long judgedBeforeTheStop = judgedRanges(verify);
    fixture.temporal().startWorker(fixture.peers(), world.ports());

    VerifyResult result = verify.getResult(VerifyResult.class);
    flow.terminate(new StopRequest(false));
    assertEquals(2, judgedBeforeTheStop, "two ranges were judged before the stop");
    assertEquals(2, result.mismatches(), result.toString());
    world.assertOnlyOneRangeReadAgain(opensBeforeVerify, result);
    assertEquals(0, world.snapshot.openCursorCount(), "the stopped attempt's cursor was closed too");
  }

  @Test
  void aResyncAfterLostHistoryCopiesAgainDeletesWhatTheGapDeletedAndStreamsOn() throws Exception {
    World world = new World(new Random(8));
    world.prefill(90);
    world.change(20);
    MirrorConfig mirror = world.mirror();
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);

    // 30 changes happen that the mirror never sees: the history up to now is lost.
    world.change(30);
    world.applyToSource(20, 50);
    world.startAfter(49);
    world.loseHistoryBeforeStart();
    MirrorStatus failed = awaitStatus(flow, s -> s.state() == MirrorPhase.FAILED);
    assertTrue(failed.lastError().contains("ChangeStreamHistoryLost"), failed.lastError());
    Set<String> deletedInTheGap = world.deletedBetween(20, 50);
    assertTrue(!deletedInTheGap.isEmpty(), "the gap deletes documents");

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = cli(world).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute("mirror", "resync", mirror.name());
    assertEquals(0, exit, err.toString());
    assertTrue(out.toString().contains("resync started"), out.toString());

    // Changes after the new starting point stream as usual.
    world.change(10);
    world.stream.reveal(60);
    world.applyToSource(50, 60);
    CdcFlowWorkflow resynced = fixture.temporal().client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(mirror.name()));
    MirrorStatus running = awaitStatus(resynced, s -> world.delivered(s, 59));
    assertTrue(running.committedBatchId() > failed.committedBatchId(), "batch numbers go on: " + running);
    resynced.terminate(new StopRequest(false));
    world.assertDestinationEqualsSource(mirror);
    assertTrue(world.liveKeys(mirror).stream().noneMatch(deletedInTheGap::contains));
  }

  /**
   * A resync copies a collection with a snapshot filter through the filter: the rows of documents
   * the filter leaves out came from the change stream, the copy never sees them, and they stay
   * (a sweep used to delete every one of them).
   */
  @Test
  void aResyncKeepsTheRowsOfDocumentsTheSnapshotFilterLeavesOut() throws Exception {
    World world = new World(new Random(9));
    world.prefill(30);
    world.change(20);
    MirrorConfig unfiltered = world.mirror();
    // Matches no document: every row comes from the change stream.
    MirrorConfig mirror = unfiltered.withSettings(unfiltered.settings().toBuilder()
        .snapshot(new SnapshotSettings(true, 30, 2, Map.of(ORDERS, "{\"noSuchField\": 1}"))).build());
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);
    Set<String> streamed = world.liveKeys(mirror);
    assertFalse(streamed.isEmpty(), "the stream wrote rows");

    world.change(10);
    world.applyToSource(20, 30);
    world.startAfter(29);
    world.loseHistoryBeforeStart();
    awaitStatus(flow, s -> s.state() == MirrorPhase.FAILED);
    StringWriter err = new StringWriter();
    assertEquals(0, cli(world).setErr(new PrintWriter(err)).execute("mirror", "resync", mirror.name()), err.toString());
    world.change(5);
    world.stream.reveal(35);
    world.applyToSource(30, 35);
    CdcFlowWorkflow resynced = fixture.temporal().client.newWorkflowStub(CdcFlowWorkflow.class,
        MirrorIds.workflowId(mirror.name()));
    awaitStatus(resynced, s -> world.delivered(s, 34) && s.snapshots().stream().allMatch(SnapshotProgress::done)
        && s.state() == MirrorPhase.RUNNING);
    resynced.terminate(new StopRequest(false));
    fixture.temporal().captureWhenClosed(mirror.name(), "resync-keeps-filtered-rows");

    Set<String> kept = new HashSet<>(streamed);
    kept.removeAll(world.deletedBetween(20, 35));
    Set<String> live = world.liveKeys(mirror);
    assertTrue(live.containsAll(kept), "rows swept: " + kept.stream().filter(k -> !live.contains(k)).toList());
  }

  /**
   * Issue 33, item 2, through the CLI: {@code mirror resync --collection} repairs one table a
   * person changed behind the mirror's back, by an edit of the running workflow, and the changes
   * made meanwhile still arrive.
   */
  @Test
  void resyncOfOneCollectionRepairsWhatWasChangedByHandWithoutRestartingTheMirror() throws Exception {
    World world = new World(new Random(21));
    world.prefill(60);
    world.change(40);
    MirrorConfig mirror = world.mirror(false);
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);
    List<BsonValue> untouched = world.untouchedFrom(20);
    world.tamperUpdate(mirror, untouched.subList(0, 3));
    world.tamperDelete(mirror, untouched.subList(3, 5));
    world.tamperInsert(mirror, 2);

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = cli(world).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute("mirror", "resync", mirror.name(), "--collection", ORDERS);
    assertEquals(0, exit, err.toString());
    assertTrue(out.toString().contains("copying orders again from the committed checkpoint"), out.toString());

    world.stream.reveal(40);
    world.applyToSource(20, 40);
    // RUNNING once the copy is done and swept: batches run only then.
    MirrorStatus done = awaitStatus(flow, s -> world.delivered(s, 39) && s.pendingEdits().isEmpty()
        && s.snapshots().stream().allMatch(SnapshotProgress::done) && s.state() == MirrorPhase.RUNNING);
    flow.terminate(new StopRequest(false));
    assertEquals(1, done.snapshots().size(), "orders copied again, its first snapshot replaced");
    world.assertDestinationEqualsSource(mirror);
  }

  @Test
  void aResyncOfAMirrorOfEveryCollectionEmptiesTheTableOfACollectionDroppedWhileTheHistoryWasLost() throws Exception {
    World world = new World(new Random(11));
    world.prefill(60);
    world.prefill(ITEMS, 7);
    world.change(20);
    MirrorConfig mirror = world.mirror(false, List.of());
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);
    assertEquals(7, world.liveKeys(mirror, ITEMS).size(), "the snapshot copied every collection");

    // While the history is lost, items is dropped: no collection list names it any more.
    world.change(20);
    world.applyToSource(20, 30);
    world.snapshot.dropCollection(ITEMS);
    world.startAfter(29);
    world.loseHistoryBeforeStart();
    MirrorStatus failed = awaitStatus(flow, s -> s.state() == MirrorPhase.FAILED);
    StringWriter err = new StringWriter();
    assertEquals(0, cli(world).setErr(new PrintWriter(err)).execute("mirror", "resync", mirror.name()), err.toString());

    world.stream.reveal(40);
    world.applyToSource(30, 40);
    CdcFlowWorkflow resynced = fixture.temporal().client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(mirror.name()));
    MirrorStatus running = awaitStatus(resynced, s -> world.delivered(s, 39));
    resynced.terminate(new StopRequest(false));
    assertTrue(running.committedBatchId() > failed.committedBatchId(), running.toString());
    assertEquals(Set.of(), world.liveKeys(mirror, ITEMS), "the dropped collection's rows were swept");
    world.assertDestinationEqualsSource(mirror);
  }

  @Test
  void withAutoResyncTheMirrorResynchronisesByItselfAndNothingStaleRemains() throws Exception {
    World world = new World(new Random(9));
    world.prefill(90);
    world.change(20);
    MirrorConfig mirror = world.mirror(true);
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);

    world.change(40);
    world.applyToSource(20, 60);
    Set<String> deletedInTheGap = world.deletedBetween(20, 50);
    world.startAfter(49);
    world.loseHistoryBeforeStart();
    // The gap's events are revealed only once the resync has begun: a batch still open when the
    // history is lost would otherwise stream them, and no resync would be needed.
    awaitStatus(flow, world::copyingFromStart);
    world.stream.reveal(60);
    MirrorStatus running = awaitStatus(flow, s -> world.delivered(s, 59));
    flow.terminate(new StopRequest(false));

    assertEquals(MirrorPhase.RUNNING, running.state(), running.toString());
    assertTrue(world.copyingFromStart(running),
        "the resync's snapshot, from the new starting point, replaced the first: " + running.snapshots());
    world.assertDestinationEqualsSource(mirror);
    assertTrue(world.liveKeys(mirror).stream().noneMatch(deletedInTheGap::contains));
  }

  @Test
  void autoResyncActsOncePerLossAndALossBeforeABatchCommittedAfterItWaitsForTheOperator() throws Exception {
    World world = new World(new Random(10));
    world.prefill(60);
    world.change(20);
    MirrorConfig mirror = world.mirror(true);
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);

    // The history of changes 20..39 is lost, and the oplog is smaller than the copy takes: once
    // the resync has taken its starting point (after change 39), the oplog moves past it too.
    world.change(40);
    world.applyToSource(20, 60);
    world.startAfter(39);
    BsonTimestamp movedOn = world.justAfter(59);
    AtomicInteger startingPoints = new AtomicInteger();
    world.whenStartingPointTaken = () -> {
      if (startingPoints.incrementAndGet() == 1) {
        world.historyLostBefore = movedOn;
      }
    };
    world.loseHistoryBeforeStart();
    MirrorStatus failed = awaitStatus(flow, s -> s.state() == MirrorPhase.FAILED);
    assertTrue(failed.lastError().contains("ChangeStreamHistoryLost"), failed.lastError());
    assertEquals(1, startingPoints.get(), "one resync for the loss, then the operator: " + failed);
    assertTrue(world.copyingFromStart(failed), "the copy is the first resync's: " + failed.snapshots());

    // The operator makes the oplog hold the history again and resumes: the mirror streams from
    // the resync's starting point, and a batch commits.
    world.historyLostBefore = null;
    world.stream.reveal(60);
    flow.resume();
    awaitStatus(flow, s -> world.delivered(s, 59) && s.state() == MirrorPhase.RUNNING);

    // A later loss, after that commit, is a new loss: autoResync acts again by itself.
    world.change(10);
    world.applyToSource(60, 70);
    world.startAfter(64);
    world.loseHistoryBeforeStart();
    awaitStatus(flow, s -> startingPoints.get() == 2 && world.copyingFromStart(s));
    world.stream.reveal(70);
    MirrorStatus running = awaitStatus(flow, s -> world.delivered(s, 69));
    flow.terminate(new StopRequest(false));
    assertEquals(MirrorPhase.RUNNING, running.state(), running.toString());
    assertEquals(2, startingPoints.get());
    world.assertDestinationEqualsSource(mirror);
  }

  // ---- the system under test ----

  /**
   * Applies the first {@code changes} scripted changes to the source, shows them on the stream,
   * starts the mirror (on the default worker unless a test started its own) and waits until it
   * has delivered them.
   */
  private CdcFlowWorkflow startMirrorDelivering(World world, MirrorConfig mirror, int changes) {
    world.applyToSource(0, changes);
    world.stream.reveal(changes);
    if (!fixture.running()) {
      fixture.start().startWorker(fixture.peers(), world.ports());
    }
    CdcFlowWorkflow flow = fixture.temporal().start(mirror);
    awaitStatus(flow, s -> world.delivered(s, changes - 1));
    return flow;
  }

  private WorkflowStub startVerify(MirrorConfig mirror, boolean repair) {
    return startVerify(mirror, repair, 2);
  }

  private WorkflowStub startVerify(MirrorConfig mirror, boolean repair, int parallel) {
    VerifyMirrorWorkflow workflow = fixture.temporal().client.newWorkflowStub(VerifyMirrorWorkflow.class,
        WorkflowOptions.newBuilder().setWorkflowId(MirrorIds.verifyWorkflowId(mirror.name()))
            .setTaskQueue(WorkerEnvironment.TASK_QUEUE).build());
    WorkflowClient.start(workflow::run, new VerifyRequest(mirror, repair, 1_000_000, parallel));
    return WorkflowStub.fromTyped(workflow);
  }

  private CommandLine cli(World world) {
    return MongoCdc.commandLine(new CliContext(options -> fixture.temporal().client,
        (catalogUrl, registry, sinkOptions) -> world.ports(), Map.of(), stop -> stop.run()));
  }

  /** Ranges of the verify run with a verdict in the catalog. */
  private static long judgedRanges(WorkflowStub verify) throws SQLException {
    try (Connection c = fixture.catalog().getConnection();
        PreparedStatement st = c.prepareStatement("select count(*) from mongo_cdc.verify_ranges r"
            + " join mongo_cdc.verify_runs v using (run_id) where v.workflow_run_id = ? and r.state = 'done'")) {
      st.setString(1, verify.getExecution().getRunId());
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static Set<String> sampleIds(long runId) throws SQLException {
    Set<String> ids = new HashSet<>();
    try (Connection c = fixture.catalog().getConnection();
        PreparedStatement st = c.prepareStatement(
            "select j from mongo_cdc.verify_ranges, jsonb_array_elements_text(sample_ids::jsonb) j where run_id = ?")) {
      st.setLong(1, runId);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getString(1));
        }
      }
    }
    return ids;
  }

  private static Gate passThrough() {
    Gate gate = new Gate();
    gate.release();
    return gate;
  }

  // ---- the world: source model, stream, snapshot source ----

  private static final class World {
    final Random random;
    final ChangeEvents events = new ChangeEvents(1_700_000_000);
    final ScriptedSnapshotSource snapshot = new ScriptedSnapshotSource(3);
    final Map<BsonValue, BsonDocument> model = new LinkedHashMap<>();
    /** Per change event: the id and the document after it (null: deleted). */
    final List<Object[]> effects = new ArrayList<>();
    final List<RawBsonDocument> changeEvents = new ArrayList<>();
    final Namespace ns = new Namespace(DATABASE, ORDERS);
    volatile RevealedChangeStream stream;
    volatile int applied;
    volatile CountDownLatch idReads = new CountDownLatch(0);
    /** The source has lost the history before this time (null: none): opening the stream there fails with code 286. */
    volatile BsonTimestamp historyLostBefore;
    /** Runs each time a starting point is taken (a new mirror or a resync), before it is returned. */
    volatile Runnable whenStartingPointTaken = () -> {};
    /** Where a new mirror (or a resync) starts: the source's operation time. */
    volatile StreamPosition start = StreamPosition.atOperationTime(START);
    String name;
    private int documentNumber;
    private final Map<BsonValue, BsonDocument> sourceState = new HashMap<>();

    World(Random random) {
      this.random = random;
      snapshot.createCollection(ORDERS);
    }

    void prefill(String collection, int documents) {
      snapshot.createCollection(collection);
      for (int i = 0; i < documents; i++) {
        snapshot.put(collection, newDocument(newId()));
      }
    }

    void prefill(int documents) {
      for (int i = 0; i < documents; i++) {
        BsonDocument doc = newDocument(newId());
        model.put(doc.get("_id"), doc);
        snapshot.put(ORDERS, doc);
      }
    }

    /** Appends changes to the script (not yet applied to the source nor revealed). */
    void change(int count) {
      Map<BsonValue, BsonDocument> docs = new LinkedHashMap<>(model);
      for (Object[] effect : effects) {
        if (effect[1] == null) {
          docs.remove(effect[0]);
        } else {
          docs.put((BsonValue) effect[0], (BsonDocument) effect[1]);
        }
      }
      for (int i = 0; i < count; i++) {
        List<BsonValue> ids = new ArrayList<>(docs.keySet());
        int op = random.nextInt(10);
        BsonValue id;
        BsonDocument after;
        RawBsonDocument event;
        if (op < 3) {
          after = newDocument(newId());
          id = after.get("_id");
          event = events.insert(ns, after);
        } else if (op < 8) {
          id = ids.get(random.nextInt(ids.size()));
          after = docs.get(id).clone();
          BsonDocument changed = new BsonDocument("version", new BsonInt32(random.nextInt(1_000_000)));
          after.putAll(changed);
          event = events.update(ns, id, after, changed);
        } else {
          id = ids.get(random.nextInt(ids.size()));
          after = null;
          event = events.delete(ns, id);
        }
        if (after == null) {
          docs.remove(id);
        } else {
          docs.put(id, after);
        }
        effects.add(new Object[] {id, after == null ? null : after.clone()});
        changeEvents.add(event);
      }
      stream = new RevealedChangeStream(changeEvents);
    }

    /** Applies changes [from, to) to the source's documents, as the server would, in order. */
    void applyToSource(int from, int to) {
      for (int i = from; i < to; i++) {
        Object[] effect = effects.get(i);
        if (effect[1] == null) {
          snapshot.delete(ORDERS, (BsonValue) effect[0]);
        } else {
          snapshot.put(ORDERS, (BsonDocument) effect[1]);
        }
        applied = i + 1;
      }
    }

    /** The mirror's one snapshot copies (or copied) from {@link #start}, the latest starting point. */
    boolean copyingFromStart(MirrorStatus status) {
      if (status.snapshots().size() != 1 || status.snapshots().get(0).position() == null) {
        return false;
      }
      Checkpoint from = status.snapshots().get(0).position();
      return from.clusterTimeSeconds() == start.clusterTime().getTime()
          && from.clusterTimeIncrement() == start.clusterTime().getInc();
    }

    /** The next two range reads pass: an injection armed after them hits the third. */
    void letTwoRangeReadsPass() {
      snapshot.gateAt(ORDERS, null, 1, passThrough());
      snapshot.gateAt(ORDERS, null, 1, passThrough());
    }

    /** Verify read each range once, but for one range it read twice (the interrupted one). */
    void assertOnlyOneRangeReadAgain(Map<IdRange, Integer> opensBefore, VerifyResult result) {
      Map<IdRange, Integer> verifyOpens = new HashMap<>();
      snapshot.openCounts(ORDERS).forEach((range, n) -> verifyOpens.put(range, n - opensBefore.getOrDefault(range, 0)));
      assertEquals(1, verifyOpens.values().stream().filter(n -> n == 2).count(),
          "only the interrupted range is read again: " + verifyOpens);
      assertTrue(verifyOpens.values().stream().allMatch(n -> n == 1 || n == 2), verifyOpens.toString());
      assertEquals(result.ranges(), verifyOpens.size());
    }

    /** Ids of documents that exist and that no change from {@code index} on touches. */
    List<BsonValue> untouchedFrom(int index) {
      Set<String> touched = new HashSet<>();
      IdKeyRenderer keys = new IdKeyRenderer();
      for (int i = 0; i < effects.size(); i++) {
        if (i >= index) {
          touched.add(keys.render((BsonValue) effects.get(i)[0]));
        }
      }
      List<BsonValue> ids = new ArrayList<>();
      for (RawBsonDocument document : snapshot.documents(ORDERS)) {
        if (!touched.contains(keys.render(document.get("_id")))) {
          ids.add(document.get("_id"));
        }
      }
      return ids;
    }

    MirrorConfig mirror() {
      return mirror(false);
    }

    MirrorConfig mirror(boolean autoResync) {
      return mirror(autoResync, List.of(ORDERS));
    }

    /** @param collections none for a mirror of every collection */
    MirrorConfig mirror(boolean autoResync, List<String> collections) {
      return mirror(autoResync, collections, null);
    }

    MirrorConfig mirror(boolean autoResync, List<String> collections, TypedColumnSettings columns) {
      name = "verify" + MIRRORS.incrementAndGet();
      return new MirrorConfig(name, SOURCE_PEER, DESTINATION_PEER, DATABASE, collections, name,
          MirrorSettings.defaults().toBuilder().batchSize(1_000).idleTimeoutSeconds(1).maxBatchDurationSeconds(600).decodeWorkers(2).chunkSize(16)
              .snapshot(new SnapshotSettings(true, 30, 2, null)).autoResync(autoResync).columns(columns).build());
    }

    /** Live rows whose typed columns n and status are not what their doc says. */
    long rowsWhoseTypedColumnsDisagreeWithDoc(MirrorConfig mirror) throws SQLException {
      try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("select count(*) from " + table(mirror) + " where not \"_deleted\""
              + " and (n is distinct from (doc->>'n')::bigint or status is distinct from doc->>'status')")) {
        rs.next();
        return rs.getLong(1);
      }
    }

    String table(MirrorConfig mirror) {
      return table(mirror, ORDERS);
    }

    String table(MirrorConfig mirror, String collection) {
      return TableNaming.qualified(mirror.destinationSchema(), TableNaming.tableName(new Namespace(DATABASE, collection)));
    }

    boolean delivered(MirrorStatus status, int eventIndex) {
      return status.committedCheckpoint() != null && status.committedCheckpoint().resumeToken() != null
          && ResumeToken.of(status.committedCheckpoint().resumeToken()).compareTo(stream.tokenOf(eventIndex)) >= 0;
    }

    /** Keys of the documents changes [from, to) deleted and nothing after them brought back. */
    Set<String> deletedBetween(int from, int to) {
      IdKeyRenderer keys = new IdKeyRenderer();
      Set<String> deleted = new HashSet<>();
      for (int i = from; i < to; i++) {
        String key = keys.render((BsonValue) effects.get(i)[0]);
        if (effects.get(i)[1] == null) {
          deleted.add(key);
        } else {
          deleted.remove(key);
        }
      }
      return deleted;
    }

    /** The source's time moves just past change {@code index}: a new starting point there. */
    void startAfter(int index) {
      start = StreamPosition.atOperationTime(justAfter(index));
    }

    /** The source's oplog no longer holds anything before {@link #start}. */
    void loseHistoryBeforeStart() {
      historyLostBefore = start.clusterTime();
    }

    BsonTimestamp justAfter(int index) {
      BsonTimestamp at = stream.tokenOf(index).clusterTime();
      return new BsonTimestamp(at.getTime(), at.getInc() + 1);
    }

    Set<String> liveKeys(MirrorConfig mirror) throws SQLException {
      return liveKeys(mirror, ORDERS);
    }

    Set<String> liveKeys(MirrorConfig mirror, String collection) throws SQLException {
      Set<String> keys = new HashSet<>();
      try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("select \"_id\" from " + table(mirror, collection) + " where not \"_deleted\"")) {
        while (rs.next()) {
          keys.add(rs.getString(1));
        }
      }
      return keys;
    }

    Set<String> tamperUpdate(MirrorConfig mirror, List<BsonValue> ids) throws SQLException {
      return tamper(mirror, ids, "update " + table(mirror) + " set doc = doc || '{\"tampered\": true}' where \"_id\" = ?");
    }

    Set<String> tamperDelete(MirrorConfig mirror, List<BsonValue> ids) throws SQLException {
      return tamper(mirror, ids, "delete from " + table(mirror) + " where \"_id\" = ?");
    }

    Set<String> tamperInsert(MirrorConfig mirror, int rows) throws SQLException {
      Set<String> keys = new HashSet<>();
      try (Connection c = fixture.destination().getConnection();
          PreparedStatement st = c.prepareStatement("insert into " + table(mirror)
              + " (\"_id\", doc, \"_position\", \"_commit_time\") values (?, ?::jsonb, '00', now())")) {
        for (int i = 0; i < rows; i++) {
          ObjectId id = new ObjectId(1_600_000_000 + i, i);
          String key = new IdKeyRenderer().render(new BsonObjectId(id));
          st.setString(1, key);
          st.setString(2, "{\"_id\": {\"$oid\": \"" + id.toHexString() + "\"}, \"ghost\": " + i + "}");
          st.executeUpdate();
          keys.add(key);
        }
      }
      return keys;
    }

    private Set<String> tamper(MirrorConfig mirror, List<BsonValue> ids, String sql) throws SQLException {
      Set<String> keys = new HashSet<>();
      try (Connection c = fixture.destination().getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
        for (BsonValue id : ids) {
          String key = new IdKeyRenderer().render(id);
          st.setString(1, key);
          assertEquals(1, st.executeUpdate(), "row " + key);
          keys.add(key);
        }
      }
      return keys;
    }

    WorkerPorts ports() {
      Catalog catalog = Catalog.open(fixture.catalog());
      PostgresTableOwnership tables = new PostgresTableOwnership(catalog);
      return new WorkerPorts(source(),
          new PostgresMirrorDestination(fixture.peers(), PostgresSinkOptions.defaults(), tables),
          new PostgresCheckpointCatalog(catalog), new PostgresSnapshotCatalog(catalog), tables,
          new VerifyStore(catalog));
    }

    MirrorSourceFactory source() {
      return new MirrorSourceFactory() {
        @Override
        public void validate(MirrorConfig mirror) {}

        @Override
        public ChangeStreamOpener openerFor(MirrorConfig mirror) {
          return position -> {
            BsonTimestamp lostBefore = historyLostBefore;
            if (lostBefore != null && position.clusterTime().compareTo(lostBefore) < 0) {
              throw new ChangeStreamHistoryLostException("resume point may no longer be in the oplog", 286, null);
            }
            return stream.watching(Set.copyOf(mirror.collections())).open(position);
          };
        }

        @Override
        public SnapshotSource snapshotSource(MirrorConfig mirror) {
          return new SignallingSource();
        }

        @Override
        public StreamPosition currentPosition(MirrorConfig mirror) {
          StreamPosition taken = start;
          whenStartingPointTaken.run();
          return taken;
        }

        /** Where the source is: after the last change applied to its documents. */
        @Override
        public StreamPosition readPosition(MirrorConfig mirror) {
          int n = applied;
          return n == 0 ? StreamPosition.atOperationTime(START) : StreamPosition.after(stream.tokenOf(n - 1));
        }
      };
    }

    /** The scripted source, counting down {@link #idReads} when verify reads single documents. */
    private final class SignallingSource implements SnapshotSource {
      @Override
      public List<String> collectionNames() {
        return snapshot.collectionNames();
      }

      @Override
      public long estimatedCount(String collection) {
        return snapshot.estimatedCount(collection);
      }

      @Override
      public List<BsonValue> sampleIds(String collection, int size) {
        return snapshot.sampleIds(collection, size);
      }

      @Override
      public DocumentCursor open(String collection, IdRange range, BsonDocument filter, int batchSize) {
        return snapshot.open(collection, range, filter, batchSize);
      }

      @Override
      public List<RawBsonDocument> findByIds(String collection, List<BsonValue> ids) {
        List<RawBsonDocument> found = snapshot.findByIds(collection, ids);
        idReads.countDown();
        return found;
      }

      @Override
      public void close() {}
    }

    void assertDestinationEqualsSource(MirrorConfig mirror) throws SQLException {
      IdKeyRenderer keys = new IdKeyRenderer();
      TranscodingJsonRenderer json = TranscodingJsonRenderer.relaxed();
      Map<String, String> expected = new HashMap<>();
      for (RawBsonDocument document : snapshot.documents(ORDERS)) {
        expected.put(keys.renderIdOf(document), json.render(document));
      }
      Map<String, Boolean> live = new HashMap<>();
      try (Connection c = fixture.destination().getConnection()) {
        try (Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("select \"_id\", doc::text from " + table(mirror) + " where not \"_deleted\"")) {
          while (rs.next()) {
            live.put(rs.getString(1), true);
          }
        }
        assertEquals(expected.keySet(), live.keySet(), "live rows");
        try (PreparedStatement st = c.prepareStatement("select doc = ?::jsonb from " + table(mirror) + " where \"_id\" = ?")) {
          for (Map.Entry<String, String> e : expected.entrySet()) {
            st.setString(1, e.getValue());
            st.setString(2, e.getKey());
            try (ResultSet rs = st.executeQuery()) {
              assertTrue(rs.next() && rs.getBoolean(1), "row " + e.getKey());
            }
          }
        }
      }
    }

    private BsonValue newId() {
      int n = documentNumber++;
      return switch (random.nextInt(3)) {
        case 0 -> new BsonInt32(n);
        case 1 -> new BsonObjectId(new ObjectId(1_700_000_000 + n, n));
        default -> new BsonString("key-" + n);
      };
    }

    private BsonDocument newDocument(BsonValue id) {
      return new BsonDocument("_id", id).append("n", new BsonInt32(documentNumber++))
          .append("status", new BsonString(random.nextBoolean() ? "active" : "archived"));
    }
  }
}
