package io.mongocdc.verify;

import static io.mongocdc.testing.WorkerEnvironment.awaitStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.console.TemporalMirrorActions;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.cli.CliContext;
import io.mongocdc.cli.MongoCdc;
import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.source.scripted.Gate;
import io.mongocdc.testing.ShortHeartbeatTimeout;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.VerifyMirrorWorkflow;
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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.bson.BsonObjectId;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;
import io.mongocdc.testing.TestPorts;
import io.mongocdc.testing.ScriptedWorld.ChangeMix;
import io.mongocdc.testing.ScriptedWorld;

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
  private static final String DATABASE = ScriptedWorld.DATABASE;
  private static final String ORDERS = "orders";
  private static final String ITEMS = "items";
  private static final AtomicInteger MIRRORS = new AtomicInteger();

  @RegisterExtension
  static final WorkflowTestExtension fixture = WorkflowTestExtension.withDatabases("verify", SOURCE_PEER, DESTINATION_PEER);

  @Test
  void everyKindOfDivergenceIsFoundNotTheChangesInFlightAndRepairLeavesNothingToFind() throws Exception {
    ScriptedWorld world = new ScriptedWorld(3, ChangeMix.NO_REPLACES);
    world.prefill(ORDERS, 120);
    world.change(ORDERS, 60);
    // Typed columns too: a repaired row gets them from the document read again, as a copy does.
    MirrorConfig mirror = mirror(false, List.of(ORDERS), new TypedColumnSettings(Map.of(ORDERS,
        List.of(new TypedColumn("n", "bigint", "n"), new TypedColumn("status", "text", "status"))), null));
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);

    // Behind the mirror's back, on documents no later change touches.
    List<BsonValue> untouched = world.untouchedFrom(ORDERS, 20);
    Set<String> changed = tamperUpdate(mirror, untouched.subList(0, 3));
    Set<String> deleted = tamperDelete(mirror, untouched.subList(3, 5));
    Set<String> extra = tamperInsert(mirror, 2);

    // Writes go on: the source has 40 more changes the mirror has not seen when verify reads it.
    // They are revealed to the stream only once verify is judging, so the mirror is behind then.
    world.applyToSource(20, 60);
    CountDownLatch idReads = world.countIdReads();
    WorkflowStub verify = startVerify(mirror, false);
    assertTrue(idReads.await(60, TimeUnit.SECONDS), "verify never narrowed down to _ids");
    world.reveal(60);
    VerifyResult found = verify.getResult(VerifyResult.class);

    VerifyResult.Collection orders = found.collections().get(0);
    assertEquals(3, orders.different(), found.toString());
    assertEquals(2, orders.missing(), found.toString());
    assertEquals(2, orders.extra(), found.toString());
    assertEquals(0, orders.unsettled(), found.toString());
    assertEquals(0, orders.repaired(), found.toString());
    assertEquals(world.snapshot().documents(ORDERS).size(), orders.sourceDocuments());
    assertTrue(found.ranges() >= 4, "120 documents in ranges of 30: " + found);
    Set<String> expected = new HashSet<>(changed);
    expected.addAll(deleted);
    expected.addAll(extra);
    assertEquals(expected, sampleIds(found.runId()), "the _ids recorded are the tampered ones");

    // More writes during the repair run, then a verify that repairs, then one that finds nothing.
    world.change(ORDERS, 20);
    world.applyToSource(60, 80);
    world.reveal(80);
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
    world.assertDestinationEqualsSource(fixture.destination(), mirror, ORDERS);
    assertEquals(0, rowsWhoseTypedColumnsDisagreeWithDoc(mirror), "typed columns of repaired rows");
  }

  /**
   * Issue 32, item 5: verify compares the source as the rules leave it, so a mirror with rules
   * verifies clean, still finds tampered rows, and repairs them under the rules.
   */
  @Test
  void aMirrorWithFieldRulesVerifiesCleanFindsTamperedRowsAndRepairsThemUnderTheRules() throws Exception {
    ScriptedWorld world = new ScriptedWorld(11, ChangeMix.NO_REPLACES);
    world.prefill(ORDERS, 60);
    world.change(ORDERS, 20);
    MirrorConfig plain = mirror();
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
    }, ports(world));
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);

    CountDownLatch idReads = world.countIdReads();
    VerifyResult clean = startVerify(mirror, false).getResult(VerifyResult.class);
    assertEquals(0, clean.mismatches(), clean.toString());
    assertEquals(1, idReads.getCount(), "every range's digest matched: no document was read again");
    assertEquals(world.snapshot().documents(ORDERS).size(), clean.collections().get(0).sourceDocuments());

    tamperUpdate(mirror, world.untouchedFrom(ORDERS, 20).subList(0, 3));
    VerifyResult repaired = startVerify(mirror, true).getResult(VerifyResult.class);
    assertEquals(3, repaired.mismatches(), repaired.toString());
    assertEquals(3, repaired.repaired(), repaired.toString());

    // A verify that started under rules the mirror no longer has does not repair under them.
    flow.edit(Map.of("fieldRules", Map.of(ORDERS, Map.of("exclude", List.of("note")))));
    // The rewrite the added rule starts must be over before the tamper: it reads a slice of rows,
    // then writes it back, and a tamper between the two (one that moves no _position) is lost.
    awaitStatus(flow, s -> catalogConfigHolds(mirror, "\"note\"") && catalogRewriteFinished(mirror));
    tamperUpdate(mirror, world.untouchedFrom(ORDERS, 20).subList(3, 4));
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
        ResultSet rs = st.executeQuery("select count(*) from " + table(mirror) + " where doc ? 'status'"
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
    ScriptedWorld world = new ScriptedWorld(5, ChangeMix.NO_REPLACES);
    world.prefill(ORDERS, 150);
    world.change(ORDERS, 10);
    MirrorConfig mirror = mirror();
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 10);
    tamperUpdate(mirror, world.untouchedFrom(ORDERS, 10).subList(0, 2));
    Map<IdRange, Integer> opensBeforeVerify = Map.copyOf(world.snapshot().openCounts(ORDERS));

    // The third range verify opens dies half-way, as with a lost worker; the range is judged again.
    letTwoRangeReadsPass(world);
    world.snapshot().failAt(ORDERS, null, 10, new IllegalStateException("worker lost mid-range (simulated)"));
    VerifyResult result = startVerify(mirror, false, 1).getResult(VerifyResult.class);
    flow.terminate(new StopRequest(false));

    assertEquals(2, result.mismatches(), result.toString());
    assertOnlyOneRangeReadAgain(world, opensBeforeVerify, result);
  }

  @Test
  void aVerifyWhoseWorkerStopsHalfWayResumesOnANewWorkerAndReadsNoJudgedRangeAgain() throws Exception {
    ScriptedWorld world = new ScriptedWorld(6, ChangeMix.NO_REPLACES);
    world.prefill(ORDERS, 150);
    world.change(ORDERS, 10);
    MirrorConfig mirror = mirror();
    // Not sticky, and heartbeats missed for 2 s count: the test server would otherwise keep the
    // workflows' tasks for the stopped worker for ever and wait 30 s for each of its activities.
    fixture.start(WorkerEnvironment.builder().stickyWorkflows(false)
        .interceptors(new ShortHeartbeatTimeout(Duration.ofSeconds(2))))
        .startWorker(fixture.peers(), ports(world));
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 10);
    tamperUpdate(mirror, world.untouchedFrom(ORDERS, 10).subList(0, 2));
    Map<IdRange, Integer> opensBeforeVerify = Map.copyOf(world.snapshot().openCounts(ORDERS));

    // Verify's third range stops half-way; there its worker is stopped as a crash would stop it.
    Gate halfWay = new Gate();
    letTwoRangeReadsPass(world);
    world.snapshot().gateAt(ORDERS, null, 10, halfWay);
    WorkflowStub verify = startVerify(mirror, false, 1);
    assertTrue(halfWay.awaitReached(Duration.ofSeconds(60)), "verify reached its third range");
    fixture.temporal().stopWorker();
    long judgedBeforeTheStop = judgedRanges(verify);
    fixture.temporal().startWorker(fixture.peers(), ports(world));

    VerifyResult result = verify.getResult(VerifyResult.class);
    flow.terminate(new StopRequest(false));
    assertEquals(2, judgedBeforeTheStop, "two ranges were judged before the stop");
    assertEquals(2, result.mismatches(), result.toString());
    assertOnlyOneRangeReadAgain(world, opensBeforeVerify, result);
    assertEquals(0, world.snapshot().openCursorCount(), "the stopped attempt's cursor was closed too");
  }

  @Test
  void aResyncAfterLostHistoryCopiesAgainDeletesWhatTheGapDeletedAndStreamsOn() throws Exception {
    ScriptedWorld world = new ScriptedWorld(8, ChangeMix.NO_REPLACES);
    world.prefill(ORDERS, 90);
    world.change(ORDERS, 20);
    MirrorConfig mirror = mirror();
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);

    // 30 changes happen that the mirror never sees: the history up to now is lost.
    world.change(ORDERS, 30);
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
    world.change(ORDERS, 10);
    world.reveal(60);
    world.applyToSource(50, 60);
    CdcFlowWorkflow resynced = fixture.temporal().client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(mirror.name()));
    MirrorStatus running = awaitStatus(resynced, s -> world.delivered(s, 59));
    assertTrue(running.committedBatchId() > failed.committedBatchId(), "batch numbers go on: " + running);
    resynced.terminate(new StopRequest(false));
    world.assertDestinationEqualsSource(fixture.destination(), mirror, ORDERS);
    assertTrue(liveKeys(mirror).stream().noneMatch(deletedInTheGap::contains));
  }

  /**
   * A resync copies a collection with a snapshot filter through the filter: the rows of documents
   * the filter leaves out came from the change stream, the copy never sees them, and they stay
   * (a sweep used to delete every one of them).
   */
  @Test
  void aResyncKeepsTheRowsOfDocumentsTheSnapshotFilterLeavesOut() throws Exception {
    ScriptedWorld world = new ScriptedWorld(9, ChangeMix.NO_REPLACES);
    world.prefill(ORDERS, 30);
    world.change(ORDERS, 20);
    MirrorConfig unfiltered = mirror();
    // Matches no document: every row comes from the change stream.
    MirrorConfig mirror = unfiltered.withSettings(unfiltered.settings().toBuilder()
        .snapshot(new SnapshotSettings(true, 30, 2, Map.of(ORDERS, "{\"noSuchField\": 1}"))).build());
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);
    Set<String> streamed = liveKeys(mirror);
    assertFalse(streamed.isEmpty(), "the stream wrote rows");

    world.change(ORDERS, 10);
    world.applyToSource(20, 30);
    world.startAfter(29);
    world.loseHistoryBeforeStart();
    awaitStatus(flow, s -> s.state() == MirrorPhase.FAILED);
    StringWriter err = new StringWriter();
    assertEquals(0, cli(world).setErr(new PrintWriter(err)).execute("mirror", "resync", mirror.name()), err.toString());
    world.change(ORDERS, 5);
    world.reveal(35);
    world.applyToSource(30, 35);
    CdcFlowWorkflow resynced = fixture.temporal().client.newWorkflowStub(CdcFlowWorkflow.class,
        MirrorIds.workflowId(mirror.name()));
    awaitStatus(resynced, s -> world.delivered(s, 34) && s.snapshots().stream().allMatch(SnapshotProgress::done)
        && s.state() == MirrorPhase.RUNNING);
    resynced.terminate(new StopRequest(false));
    fixture.temporal().captureWhenClosed(mirror.name(), "resync-keeps-filtered-rows");

    Set<String> kept = new HashSet<>(streamed);
    kept.removeAll(world.deletedBetween(20, 35));
    Set<String> live = liveKeys(mirror);
    assertTrue(live.containsAll(kept), "rows swept: " + kept.stream().filter(k -> !live.contains(k)).toList());
  }

  /**
   * Issue 33, item 2, through the CLI: {@code mirror resync --collection} repairs one table a
   * person changed behind the mirror's back, by an edit of the running workflow, and the changes
   * made meanwhile still arrive.
   */
  @Test
  void resyncOfOneCollectionRepairsWhatWasChangedByHandWithoutRestartingTheMirror() throws Exception {
    ScriptedWorld world = new ScriptedWorld(21, ChangeMix.NO_REPLACES);
    world.prefill(ORDERS, 60);
    world.change(ORDERS, 40);
    MirrorConfig mirror = mirror(false);
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);
    List<BsonValue> untouched = world.untouchedFrom(ORDERS, 20);
    tamperUpdate(mirror, untouched.subList(0, 3));
    tamperDelete(mirror, untouched.subList(3, 5));
    tamperInsert(mirror, 2);

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int exit = cli(world).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
        .execute("mirror", "resync", mirror.name(), "--collection", ORDERS);
    assertEquals(0, exit, err.toString());
    assertTrue(out.toString().contains("copying orders again from the committed checkpoint"), out.toString());

    world.reveal(40);
    world.applyToSource(20, 40);
    // RUNNING once the copy is done and swept: batches run only then.
    MirrorStatus done = awaitStatus(flow, s -> world.delivered(s, 39) && s.pendingEdits().isEmpty()
        && s.snapshots().stream().allMatch(SnapshotProgress::done) && s.state() == MirrorPhase.RUNNING);
    flow.terminate(new StopRequest(false));
    assertEquals(1, done.snapshots().size(), "orders copied again, its first snapshot replaced");
    world.assertDestinationEqualsSource(fixture.destination(), mirror, ORDERS);
  }

  @Test
  void aResyncOfAMirrorOfEveryCollectionEmptiesTheTableOfACollectionDroppedWhileTheHistoryWasLost() throws Exception {
    ScriptedWorld world = new ScriptedWorld(11, ChangeMix.NO_REPLACES);
    world.prefill(ORDERS, 60);
    world.prefill(ITEMS, 7);
    world.change(ORDERS, 20);
    MirrorConfig mirror = mirror(false, List.of());
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);
    assertEquals(7, liveKeys(mirror, ITEMS).size(), "the snapshot copied every collection");

    // While the history is lost, items is dropped: no collection list names it any more.
    world.change(ORDERS, 20);
    world.applyToSource(20, 30);
    world.snapshot().dropCollection(ITEMS);
    world.startAfter(29);
    world.loseHistoryBeforeStart();
    MirrorStatus failed = awaitStatus(flow, s -> s.state() == MirrorPhase.FAILED);
    StringWriter err = new StringWriter();
    assertEquals(0, cli(world).setErr(new PrintWriter(err)).execute("mirror", "resync", mirror.name()), err.toString());

    world.reveal(40);
    world.applyToSource(30, 40);
    CdcFlowWorkflow resynced = fixture.temporal().client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(mirror.name()));
    MirrorStatus running = awaitStatus(resynced, s -> world.delivered(s, 39));
    resynced.terminate(new StopRequest(false));
    assertTrue(running.committedBatchId() > failed.committedBatchId(), running.toString());
    assertEquals(Set.of(), liveKeys(mirror, ITEMS), "the dropped collection's rows were swept");
    world.assertDestinationEqualsSource(fixture.destination(), mirror, ORDERS);
  }

  @Test
  void withAutoResyncTheMirrorResynchronisesByItselfAndNothingStaleRemains() throws Exception {
    ScriptedWorld world = new ScriptedWorld(9, ChangeMix.NO_REPLACES);
    world.prefill(ORDERS, 90);
    world.change(ORDERS, 20);
    MirrorConfig mirror = mirror(true);
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);

    world.change(ORDERS, 40);
    world.applyToSource(20, 60);
    Set<String> deletedInTheGap = world.deletedBetween(20, 50);
    world.startAfter(49);
    world.loseHistoryBeforeStart();
    // The gap's events are revealed only once the resync has begun: a batch still open when the
    // history is lost would otherwise stream them, and no resync would be needed.
    awaitStatus(flow, world::copyingFromStart);
    world.reveal(60);
    MirrorStatus running = awaitStatus(flow, s -> world.delivered(s, 59));
    flow.terminate(new StopRequest(false));

    assertEquals(MirrorPhase.RUNNING, running.state(), running.toString());
    assertTrue(world.copyingFromStart(running),
        "the resync's snapshot, from the new starting point, replaced the first: " + running.snapshots());
    world.assertDestinationEqualsSource(fixture.destination(), mirror, ORDERS);
    assertTrue(liveKeys(mirror).stream().noneMatch(deletedInTheGap::contains));
  }

  @Test
  void autoResyncActsOncePerLossAndALossBeforeABatchCommittedAfterItWaitsForTheOperator() throws Exception {
    ScriptedWorld world = new ScriptedWorld(10, ChangeMix.NO_REPLACES);
    world.prefill(ORDERS, 60);
    world.change(ORDERS, 20);
    MirrorConfig mirror = mirror(true);
    CdcFlowWorkflow flow = startMirrorDelivering(world, mirror, 20);

    // The history of changes 20..39 is lost, and the oplog is smaller than the copy takes: once
    // the resync has taken its starting point (after change 39), the oplog moves past it too.
    world.change(ORDERS, 40);
    world.applyToSource(20, 60);
    world.startAfter(39);
    BsonTimestamp movedOn = world.justAfter(59);
    AtomicInteger startingPoints = new AtomicInteger();
    world.whenStartingPointTaken(() -> {
      if (startingPoints.incrementAndGet() == 1) {
        world.loseHistoryBefore(movedOn);
      }
    });
    world.loseHistoryBeforeStart();
    MirrorStatus failed = awaitStatus(flow, s -> s.state() == MirrorPhase.FAILED);
    assertTrue(failed.lastError().contains("ChangeStreamHistoryLost"), failed.lastError());
    assertEquals(1, startingPoints.get(), "one resync for the loss, then the operator: " + failed);
    assertTrue(world.copyingFromStart(failed), "the copy is the first resync's: " + failed.snapshots());

    // The operator makes the oplog hold the history again and resumes: the mirror streams from
    // the resync's starting point, and a batch commits.
    world.loseHistoryBefore(null);
    world.reveal(60);
    flow.resume();
    awaitStatus(flow, s -> world.delivered(s, 59) && s.state() == MirrorPhase.RUNNING);

    // A later loss, after that commit, is a new loss: autoResync acts again by itself.
    world.change(ORDERS, 10);
    world.applyToSource(60, 70);
    world.startAfter(64);
    world.loseHistoryBeforeStart();
    awaitStatus(flow, s -> startingPoints.get() == 2 && world.copyingFromStart(s));
    world.reveal(70);
    MirrorStatus running = awaitStatus(flow, s -> world.delivered(s, 69));
    flow.terminate(new StopRequest(false));
    assertEquals(MirrorPhase.RUNNING, running.state(), running.toString());
    assertEquals(2, startingPoints.get());
    world.assertDestinationEqualsSource(fixture.destination(), mirror, ORDERS);
  }

  // ---- the system under test ----

  /**
   * Applies the first {@code changes} scripted changes to the source, shows them on the stream,
   * starts the mirror (on the default worker unless a test started its own) and waits until it
   * has delivered them.
   */
  private CdcFlowWorkflow startMirrorDelivering(ScriptedWorld world, MirrorConfig mirror, int changes) {
    world.applyToSource(0, changes);
    world.reveal(changes);
    if (!fixture.running()) {
      fixture.start().startWorker(fixture.peers(), ports(world));
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

  private CommandLine cli(ScriptedWorld world) {
    return MongoCdc.commandLine(new CliContext(options -> fixture.temporal().client,
        (catalogUrl, registry, sinkOptions) -> ports(world), Map.of(), stop -> stop.run()));
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

  // ---- the mirror, its ports, and the destination behind its back ----

  private static MirrorConfig mirror() {
    return mirror(false);
  }

  private static MirrorConfig mirror(boolean autoResync) {
    return mirror(autoResync, List.of(ORDERS));
  }

  /** @param collections none for a mirror of every collection */
  private static MirrorConfig mirror(boolean autoResync, List<String> collections) {
    return mirror(autoResync, collections, null);
  }

  private static MirrorConfig mirror(boolean autoResync, List<String> collections, TypedColumnSettings columns) {
    String name = "verify" + MIRRORS.incrementAndGet();
    return new MirrorConfig(name, SOURCE_PEER, DESTINATION_PEER, DATABASE, collections, name,
        MirrorSettings.defaults().toBuilder().batchSize(1_000).idleTimeoutSeconds(1).maxBatchDurationSeconds(600).decodeWorkers(2).chunkSize(16)
            .snapshot(new SnapshotSettings(true, 30, 2, null)).autoResync(autoResync).columns(columns).build());
  }

  private static WorkerPorts ports(ScriptedWorld world) {
    return TestPorts.postgres(fixture).source(world.source()).verifyRuns().build();
  }

  /** The next two range reads pass: an injection armed after them hits the third. */
  private static void letTwoRangeReadsPass(ScriptedWorld world) {
    world.snapshot().gateAt(ORDERS, null, 1, passThrough());
    world.snapshot().gateAt(ORDERS, null, 1, passThrough());
  }

  /** Verify read each range once, but for one range it read twice (the interrupted one). */
  private static void assertOnlyOneRangeReadAgain(ScriptedWorld world, Map<IdRange, Integer> opensBefore,
      VerifyResult result) {
    Map<IdRange, Integer> verifyOpens = new HashMap<>();
    world.snapshot().openCounts(ORDERS)
        .forEach((range, n) -> verifyOpens.put(range, n - opensBefore.getOrDefault(range, 0)));
    assertEquals(1, verifyOpens.values().stream().filter(n -> n == 2).count(),
        "only the interrupted range is read again: " + verifyOpens);
    assertTrue(verifyOpens.values().stream().allMatch(n -> n == 1 || n == 2), verifyOpens.toString());
    assertEquals(result.ranges(), verifyOpens.size());
  }

  /** Live rows whose typed columns n and status are not what their doc says. */
  private static long rowsWhoseTypedColumnsDisagreeWithDoc(MirrorConfig mirror) throws SQLException {
    try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select count(*) from " + table(mirror) + " where not \"_deleted\""
            + " and (n is distinct from (doc->>'n')::bigint or status is distinct from doc->>'status')")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String table(MirrorConfig mirror) {
    return ScriptedWorld.table(mirror, ORDERS);
  }

  private static Set<String> liveKeys(MirrorConfig mirror) throws SQLException {
    return liveKeys(mirror, ORDERS);
  }

  private static Set<String> liveKeys(MirrorConfig mirror, String collection) throws SQLException {
    Set<String> keys = new HashSet<>();
    try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select \"_id\" from " + ScriptedWorld.table(mirror, collection)
            + " where not \"_deleted\"")) {
      while (rs.next()) {
        keys.add(rs.getString(1));
      }
    }
    return keys;
  }

  private static Set<String> tamperUpdate(MirrorConfig mirror, List<BsonValue> ids) throws SQLException {
    return tamper(ids, "update " + table(mirror) + " set doc = doc || '{\"tampered\": true}' where \"_id\" = ?");
  }

  private static Set<String> tamperDelete(MirrorConfig mirror, List<BsonValue> ids) throws SQLException {
    return tamper(ids, "delete from " + table(mirror) + " where \"_id\" = ?");
  }

  private static Set<String> tamperInsert(MirrorConfig mirror, int rows) throws SQLException {
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

  private static Set<String> tamper(List<BsonValue> ids, String sql) throws SQLException {
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
}
