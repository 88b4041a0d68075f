package io.mongocdc.snapshot;

import static io.mongocdc.testing.WorkerEnvironment.awaitStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.mongocdc.decode.Namespace;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.source.scripted.Gate;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.SnapshotProgress;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.mongocdc.workflows.model.StopRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import static io.mongocdc.testing.ScriptedWorld.table;
import io.mongocdc.testing.TestPorts;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.testing.ScriptedWorld.ChangeMix;
import io.mongocdc.testing.ScriptedWorld;

/**
 * The snapshot end to end: the real workflow, snapshot and change activities, the PostgreSQL
 * destination and catalog, a scripted source whose documents change while it is copied.
 *
 * <p>The oracle: the destination ends equal to the source's final state, and an audit trigger on
 * the destination table shows that no row's position ever went backwards.
 */
class SnapshotWorkflowTest {

  private static final String SOURCE_PEER = "snap-mongo";
  private static final String DESTINATION_PEER = "snap-pg";
  private static final String DATABASE = ScriptedWorld.DATABASE;
  private static final AtomicInteger MIRRORS = new AtomicInteger();

  @RegisterExtension
  static final WorkflowTestExtension fixture = WorkflowTestExtension.withDatabases("snapshot", SOURCE_PEER, DESTINATION_PEER);

  // ---- the tests ----

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void changesDuringTheSnapshotAreReplayedOverItNothingLostNoRowRegresses(long seed) throws Exception {
    ScriptedWorld world = new ScriptedWorld(seed, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 150);
    int changes = 120;
    world.change("orders", changes);
    int duringSnapshot = world.nextInt(changes + 1);
    world.reveal(changes);

    // The second partition stops half-way; meanwhile the first `duringSnapshot` changes happen.
    Gate midSnapshot = new Gate();
    Gate tableReady = new Gate();
    world.snapshot().gateAt("orders", null, 1, tableReady);
    world.snapshot().gateAt("orders", null, 10, midSnapshot);

    MirrorConfig mirror = mirror(List.of("orders"), new SnapshotSettings(true, 30, 1, null));
    CdcFlowWorkflow workflow = start(world, mirror);
    awaitGate(tableReady);
    installAudit(table(mirror, "orders"));
    tableReady.release();
    awaitGate(midSnapshot);
    world.applyToSource(0, duringSnapshot);
    // Issue 48: the batches stream from the start point while the copy is stuck mid-partition.
    MirrorStatus streaming = awaitStatus(workflow, s -> world.streamed(s, changes - 1));
    assertFalse(streaming.snapshots().get(0).done(), "the checkpoint moved on during the copy: " + streaming);
    midSnapshot.release();

    MirrorStatus done = awaitStatus(workflow, s -> world.delivered(s, changes - 1));
    workflow.terminate(new StopRequest(false));
    if (seed == 1) {
      captureWhenClosed(mirror, "snapshot-beside-batches");
    }

    SnapshotProgress progress = done.snapshots().get(0);
    assertEquals(SnapshotProgress.State.DONE, progress.state());
    assertTrue(progress.partitionsTotal() >= 5, "150 documents in partitions of 30: " + progress);
    assertEquals(progress.partitionsTotal(), progress.partitionsDone());
    assertEquals(catalogDocumentsCopied(mirror.name()), progress.documentsCopied(), "status and catalog agree");
    assertTrue(progress.documentsCopied() >= 100, progress.toString());
    world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
    assertNoRowWentBackwards(table(mirror, "orders"));
  }

  @Test
  void aCopyThatFailsMidPartitionIsCopiedAgainAndFinishedPartitionsAreNeverReadAgain() throws Exception {
    ScriptedWorld world = new ScriptedWorld(7, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 100);
    world.change("orders", 30);
    world.reveal(30);
    MirrorConfig mirror = mirror(List.of("orders"), new SnapshotSettings(true, 20, 1, null));
    // Partitions are opened one at a time, in order; arming applies to the opens in order. The
    // third partition fails after 5 documents (a crash in the middle): the activity retries it.
    world.snapshot().gateAt("orders", null, 1, passThrough());
    world.snapshot().gateAt("orders", null, 1, passThrough());
    world.snapshot().failAt("orders", null, 6, new IllegalStateException("worker lost mid-partition"));

    CdcFlowWorkflow workflow = start(world, mirror);
    awaitStatus(workflow, s -> world.delivered(s, 29));
    workflow.terminate(new StopRequest(false));

    Map<IdRange, Integer> opens = world.snapshot().openCounts("orders");
    assertEquals(1, opens.values().stream().filter(n -> n == 2).count(), "only the failed partition is read twice: " + opens);
    assertTrue(opens.values().stream().allMatch(n -> n == 1 || n == 2), opens.toString());
    assertTrue(opens.size() >= 5, "100 documents in partitions of 20: " + opens);
    world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
  }

  @Test
  void aSnapshotThatFailedResumesFromTheCatalogWithoutRedoingFinishedPartitions() throws Exception {
    ScriptedWorld world = new ScriptedWorld(11, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 120);
    world.change("orders", 20);
    world.reveal(20);
    MirrorConfig mirror = mirror(List.of("orders"), new SnapshotSettings(true, 20, 1, null));
    // Partitions are opened one at a time, in order; the fifth fails in a way retrying cannot fix.
    for (int i = 0; i < 4; i++) {
      world.snapshot().gateAt("orders", null, 1, passThrough());
    }
    world.snapshot().failAt("orders", null, 3,
        new InvalidMirrorConfigurationException("the partition's documents cannot be read (simulated)"));

    CdcFlowWorkflow workflow = start(world, mirror);
    MirrorStatus failed = awaitStatus(workflow, s -> s.state() == MirrorPhase.FAILED);
    assertTrue(failed.lastError().contains("cannot be read (simulated)"), failed.lastError());
    SnapshotProgress stopped = failed.snapshots().get(0);
    assertEquals(4, stopped.partitionsDone(), stopped.toString());
    assertTrue(stopped.partitionsTotal() > 5, stopped.toString());
    assertEquals(5, world.snapshot().openCounts("orders").size());

    workflow.resume();
    awaitStatus(workflow, s -> world.delivered(s, 19));
    workflow.terminate(new StopRequest(false));
    captureWhenClosed(mirror, "snapshot-failed-then-resumed");

    Map<IdRange, Integer> opens = world.snapshot().openCounts("orders");
    assertEquals(1, opens.values().stream().filter(n -> n == 2).count(),
        "after resuming, only the failed partition is read again: " + opens);
    assertTrue(opens.values().stream().allMatch(n -> n == 1 || n == 2), opens.toString());
    assertEquals(stopped.partitionsTotal(), opens.size());
    world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
  }

  @Test
  void aPauseThatCancelsStopsACopyBlockedInTheSourceAndResumeCopiesThatPartitionAgain() throws Exception {
    ScriptedWorld world = new ScriptedWorld(13, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 60);
    world.change("orders", 10);
    world.reveal(10);
    MirrorConfig mirror = mirror(List.of("orders"), new SnapshotSettings(true, 20, 1, null));
    // The second partition's read blocks and is never released: only the heartbeat timer can
    // learn of the cancellation, and closing the cursor is what ends the read.
    Gate stuck = new Gate();
    world.snapshot().gateAt("orders", null, 1, passThrough());
    world.snapshot().gateAt("orders", null, 5, stuck);

    CdcFlowWorkflow workflow = start(world, mirror);
    awaitGate(stuck);
    workflow.pause(new StopRequest(true));
    MirrorStatus paused = awaitStatus(workflow, s -> s.state() == MirrorPhase.PAUSED);
    assertEquals(1, paused.snapshots().get(0).partitionsDone(), paused.snapshots().toString());

    workflow.resume();
    awaitStatus(workflow, s -> world.delivered(s, 9));
    workflow.terminate(new StopRequest(false));

    Map<IdRange, Integer> opens = world.snapshot().openCounts("orders");
    assertEquals(1, opens.values().stream().filter(n -> n == 2).count(), "only the cancelled partition again: " + opens);
    world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
  }

  /**
   * Issue 48: a partition copied beside the batches writes by the settings it started with, so an
   * edit waits until no partition is under way (none starts meanwhile) while the batches go on;
   * then it applies and the copy carries on under the new settings.
   */
  @Test
  void anEditDuringACopyWaitsForThePartitionUnderWayWhileTheBatchesGoOn() throws Exception {
    ScriptedWorld world = new ScriptedWorld(19, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 60);
    world.change("orders", 30);
    world.reveal(10);
    MirrorConfig mirror = mirror(List.of("orders"), new SnapshotSettings(true, 20, 1, null));
    Gate stuck = new Gate();
    world.snapshot().gateAt("orders", null, 1, passThrough());
    world.snapshot().gateAt("orders", null, 5, stuck);

    CdcFlowWorkflow workflow = start(world, mirror);
    awaitGate(stuck);
    workflow.edit(Map.of("batchSize", 7));
    world.reveal(30);
    MirrorStatus waiting = awaitStatus(workflow, s -> world.streamed(s, 29));
    assertEquals(1, waiting.pendingEdits().size(), "the edit waits for the partition under way: " + waiting);
    assertEquals(2, world.snapshot().openCounts("orders").size(),
        "no partition started after the stuck one: " + world.snapshot().openCounts("orders"));
    world.applyToSource(0, 30);
    stuck.release();
    MirrorStatus done = awaitStatus(workflow, s -> world.delivered(s, 29) && s.pendingEdits().isEmpty());
    workflow.terminate(new StopRequest(false));

    assertEquals(7, done.config().settings().batchSize());
    world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
  }

  @Test
  void anAddedCollectionIsSnapshottedFromTheCheckpointAndItsChangesFollowWithoutAGap() throws Exception {
    ScriptedWorld world = new ScriptedWorld(5, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 40);
    world.prefill("items", 60);
    world.change("orders", 20);          // 0..19: before the edit
    world.changeMixed(List.of("orders", "items"), 40); // 20..59: items changes included
    world.reveal(20);

    MirrorConfig mirror = mirror(List.of("orders"), new SnapshotSettings(true, 25, 2, null));
    Gate itemsSnapshot = new Gate();
    world.snapshot().gateAt("items", null, 1, itemsSnapshot);
    CdcFlowWorkflow workflow = start(world, mirror);
    awaitStatus(workflow, s -> world.delivered(s, 19));

    workflow.edit(Map.of("addCollections", List.of("items")));
    awaitGate(itemsSnapshot);
    // Changes after the checkpoint, made while items is being copied: the replay must bring them.
    world.reveal(40);
    world.applyToSource(20, 40);
    itemsSnapshot.release();
    MirrorStatus added = awaitStatus(workflow, s -> s.snapshots().size() == 2 && s.snapshots().get(1).done());
    world.reveal(60);
    awaitStatus(workflow, s -> world.delivered(s, 59));
    workflow.terminate(new StopRequest(false));
    captureWhenClosed(mirror, "add-collection-snapshot");

    SnapshotProgress items = added.snapshots().get(1);
    assertEquals("items", items.collection());
    assertEquals(world.checkpointAtEvent(19), items.position().resumeToken(),
        "the added collection is copied from the checkpoint its changes resume from");
    assertEquals(List.of("orders", "items"), added.config().collections());
    world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
    world.assertDestinationHoldsScript(fixture.destination(), mirror, "items");
  }

  /**
   * Issue 33, item 2: one collection copied again by an edit, the workflow not restarted. A row
   * lost by hand comes back, a row the source never had goes, changes made while the copy runs
   * arrive, and the other collection's changes follow from the checkpoint without a gap. The copy
   * starts where the mirror's first snapshot started when no batch has moved the checkpoint since,
   * so it must be planned afresh rather than answered from the stored, finished plan.
   */
  @Test
  void aCollectionCopiedAgainByAnEditRestoresWhatWasLostDropsWhatTheSourceLacksAndTheOtherFollows()
      throws Exception {
    ScriptedWorld world = new ScriptedWorld(11, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 30);
    world.prefill("items", 30);
    world.changeMixed(List.of("orders", "items"), 40);
    world.reveal(20);
    MirrorConfig mirror = mirror(List.of("orders", "items"), new SnapshotSettings(true, 20, 2, null));
    CdcFlowWorkflow workflow = start(world, mirror);
    awaitStatus(workflow, s -> world.delivered(s, 19));
    world.applyToSource(0, 20);
    String orders = table(mirror, "orders");
    try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement()) {
      // One row's _id changed by hand: the real one is gone, a ghost the source never had is there.
      assertEquals(1, st.executeUpdate("update " + orders + " set \"_id\" = 'ghost' where \"_id\" = (select min(\"_id\")"
          + " from " + orders + " where not \"_deleted\")"));
    }

    Gate copying = new Gate();
    world.snapshot().gateAt("orders", null, 1, copying);
    workflow.edit(Map.of("resyncCollections", List.of("orders")));
    awaitGate(copying);
    // Changes made while orders is copied again: the batches after the copy bring them.
    world.reveal(40);
    world.applyToSource(20, 40);
    copying.release();
    awaitStatus(workflow, s -> world.delivered(s, 39) && s.snapshots().stream().allMatch(SnapshotProgress::done));
    MirrorStatus after = workflow.status();
    workflow.terminate(new StopRequest(false));
    captureWhenClosed(mirror, "resync-one-collection");

    assertEquals(List.of("items", "orders"), after.snapshots().stream().map(SnapshotProgress::collection).toList(),
        "orders has a new snapshot, items keeps its own");
    world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
    world.assertDestinationHoldsScript(fixture.destination(), mirror, "items");
    try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select \"_deleted\" from " + orders + " where \"_id\" = 'ghost'")) {
      assertTrue(rs.next());
      assertTrue(rs.getBoolean(1), "the row the source never had is swept (deleted as a delete event deletes)");
    }
  }

  /**
   * Issue 48, item 1: a copy an edit asks for is made beside the batches. While one of its
   * partitions is stuck in the source, the batches go on committing every collection's changes,
   * the copied collection's included; the copy then finishes, is swept, and both tables match.
   */
  @Test
  void aCollectionCopiedAgainGoesOnBesideTheBatchesWhichCommitEveryCollectionsChangesMeanwhile()
      throws Exception {
    ScriptedWorld world = new ScriptedWorld(17, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 60);
    world.prefill("items", 20);
    world.changeMixed(List.of("orders", "items"), 40);
    world.reveal(10);
    // Partitions of 20 documents, one at a time: orders is copied again in three partitions.
    MirrorConfig mirror = mirror(List.of("orders", "items"), new SnapshotSettings(true, 20, 1, null));
    CdcFlowWorkflow workflow = start(world, mirror);
    awaitStatus(workflow, s -> world.delivered(s, 9));
    world.applyToSource(0, 10);

    Gate secondPartition = new Gate();
    world.snapshot().gateAt("orders", null, 1, passThrough());
    world.snapshot().gateAt("orders", null, 1, secondPartition);
    workflow.edit(Map.of("resyncCollections", List.of("orders")));
    awaitGate(secondPartition);
    // Changes of both collections made while orders is copied again, its second partition stuck.
    world.reveal(40);
    world.applyToSource(10, 40);
    MirrorStatus meanwhile = awaitStatus(workflow, s -> world.streamed(s, 39));
    SnapshotProgress copying = meanwhile.snapshots().stream().filter(p -> p.collection().equals("orders")).findFirst()
        .orElseThrow();
    assertFalse(copying.done(), "the copy of orders is still under way: " + copying);
    assertEquals(MirrorPhase.SNAPSHOTTING, meanwhile.state(), "status says the mirror is still copying");
    secondPartition.release();
    awaitStatus(workflow, s -> world.delivered(s, 39));
    workflow.terminate(new StopRequest(false));
    captureWhenClosed(mirror, "resync-one-collection-beside-batches");

    world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
    world.assertDestinationHoldsScript(fixture.destination(), mirror, "items");
  }

  /**
   * With no change since the mirror's snapshot the checkpoint is still where that snapshot started:
   * the copy again must be planned afresh, not answered by the stored, finished plan of that start.
   */
  @Test
  void aCollectionCopiedAgainFromWhereItsFirstCopyStartedIsReadAgain() throws Exception {
    ScriptedWorld world = new ScriptedWorld(13, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 30);
    world.change("orders", 0);
    MirrorConfig mirror = mirror(List.of("orders"), new SnapshotSettings(true, 20, 2, null));
    CdcFlowWorkflow workflow = start(world, mirror);
    awaitStatus(workflow, s -> s.state() == MirrorPhase.RUNNING && s.snapshots().get(0).done());
    String orders = table(mirror, "orders");
    try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement()) {
      assertEquals(1, st.executeUpdate("delete from " + orders + " where \"_id\" = (select min(\"_id\") from " + orders
          + ")"));
    }

    workflow.edit(Map.of("resyncCollections", List.of("orders")));
    awaitStatus(workflow, s -> s.pendingEdits().isEmpty() && s.snapshots().get(0).done()
        && s.state() == MirrorPhase.RUNNING);
    workflow.terminate(new StopRequest(false));

    world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
  }

  /**
   * Issue 36, finding 10: history turned on for a collection of a running mirror starts with a
   * snapshot row for every current document, so every current row has a history row at its
   * position and "the state at time T" answers from then on. (It used to start empty: rows not
   * changed since had no history row at their position.)
   */
  @Test
  void historyTurnedOnStartsWithARowForEveryCurrentDocument() throws Exception {
    ScriptedWorld world = new ScriptedWorld(14, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 40);
    world.change("orders", 30);
    world.reveal(10);
    MirrorConfig mirror = mirror(List.of("orders"), new SnapshotSettings(true, 20, 2, null));
    CdcFlowWorkflow workflow = start(world, mirror);
    awaitStatus(workflow, s -> world.delivered(s, 9));
    world.applyToSource(0, 10);

    workflow.edit(Map.of("history", Map.of("orders", true)));
    awaitStatus(workflow, s -> s.pendingEdits().isEmpty() && s.snapshots().get(0).done()
        && s.state() == MirrorPhase.RUNNING);
    world.reveal(30);
    world.applyToSource(10, 30);
    awaitStatus(workflow, s -> world.delivered(s, 29));
    workflow.terminate(new StopRequest(false));
    captureWhenClosed(mirror, "history-turned-on-copies");

    world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
    String orders = table(mirror, "orders");
    String history = TableNaming.qualified(mirror.destinationSchema(),
        TableNaming.historyTableName(TableNaming.tableName(new Namespace(DATABASE, "orders"))));
    try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select count(*), count(h.\"_id\") from " + orders + " s left join " + history
            + " h on h.\"_id\" = s.\"_id\" and h.\"_position\" = s.\"_position\" where not s.\"_deleted\"")) {
      assertTrue(rs.next());
      assertTrue(rs.getInt(1) > 0);
      assertEquals(rs.getInt(1), rs.getInt(2), "every current row has a history row at its position");
    }
  }

  /**
   * History on, off while documents are deleted, on again: the copy at the second re-enable writes
   * an insert for every current document, and each document deleted in the gap gets its delete at
   * its tombstone's position, so the history shows it deleted, not alive (issue 47, finding 10: it
   * used to keep the last row from before the gap, and the tombstones had no history row).
   */
  @Test
  void historyTurnedOffAndOnAgainMarksTheDocumentsDeletedInTheGap() throws Exception {
    ScriptedWorld world = new ScriptedWorld(15, ChangeMix.NO_REPLACES);
    world.prefill("orders", 30);
    world.change("orders", 90);
    world.reveal(10);
    MirrorConfig mirror = mirror(List.of("orders"), new SnapshotSettings(true, 20, 2, null));
    CdcFlowWorkflow workflow = start(world, mirror);
    awaitStatus(workflow, s -> world.delivered(s, 9));
    world.applyToSource(0, 10);
    workflow.edit(Map.of("history", Map.of("orders", true)));
    awaitStatus(workflow, s -> s.pendingEdits().isEmpty() && s.snapshots().get(0).done()
        && s.state() == MirrorPhase.RUNNING);
    world.reveal(30);
    world.applyToSource(10, 30);
    awaitStatus(workflow, s -> world.delivered(s, 29));

    workflow.edit(Map.of("history", Map.of("orders", false)));
    awaitStatus(workflow, s -> s.pendingEdits().isEmpty() && s.config().settings().history().collections().isEmpty());
    world.reveal(70);
    world.applyToSource(30, 70);
    awaitStatus(workflow, s -> world.delivered(s, 69));
    assertFalse(world.deletedBetween(30, 70).isEmpty(), "documents are deleted while the history is off");

    workflow.edit(Map.of("history", Map.of("orders", true)));
    awaitStatus(workflow, s -> s.pendingEdits().isEmpty() && s.snapshots().get(0).done()
        && s.state() == MirrorPhase.RUNNING);
    world.reveal(90);
    world.applyToSource(70, 90);
    awaitStatus(workflow, s -> world.delivered(s, 89));
    workflow.terminate(new StopRequest(false));

    world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
    String orders = table(mirror, "orders");
    String history = TableNaming.qualified(mirror.destinationSchema(),
        TableNaming.historyTableName(TableNaming.tableName(new Namespace(DATABASE, "orders"))));
    try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement()) {
      try (ResultSet rs = st.executeQuery("select count(*) filter (where s.\"_deleted\"), count(*) filter (where not"
          + " exists (select 1 from " + history + " h where h.\"_id\" = s.\"_id\" and h.\"_position\" = s.\"_position\"))"
          + " from " + orders + " s")) {
        assertTrue(rs.next());
        assertTrue(rs.getInt(1) > 0, "tombstones");
        assertEquals(0, rs.getInt(2), "every row, tombstones too, has a history row at its position");
      }
      // "The state at T" (docs/destination.md) for T now: the last history row of each document.
      try (ResultSet rs = st.executeQuery("select count(*) from " + orders + " s cross join lateral (select"
          + " h.\"_operation\" from " + history + " h where h.\"_id\" = s.\"_id\" and not (h.\"_operation\" = 'update'"
          + " and h.\"doc\" is null) order by h.\"_position\" desc limit 1) last"
          + " where (last.\"_operation\" = 'delete') <> s.\"_deleted\"")) {
        assertTrue(rs.next());
        assertEquals(0, rs.getInt(1), "the history shows every document as the table does, deleted or alive");
      }
    }
  }

  @Test
  void anAddedCollectionTheSourceDoesNotHaveIsRejectedAndTheMirrorGoesOn() throws Exception {
    ScriptedWorld world = new ScriptedWorld(9, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 10);
    world.change("orders", 10);
    world.reveal(5);
    MirrorConfig mirror = mirror(List.of("orders"), new SnapshotSettings(true, 100, 1, null));
    CdcFlowWorkflow workflow = start(world, mirror);
    awaitStatus(workflow, s -> world.delivered(s, 4));

    workflow.edit(Map.of("addCollections", List.of("ghosts"), "batchSize", 500));
    world.reveal(10);
    // The edit applies at the next step boundary, which may come after the batch that delivers.
    MirrorStatus status = awaitStatus(workflow, s -> world.delivered(s, 9) && s.pendingEdits().isEmpty());
    workflow.terminate(new StopRequest(false));

    assertEquals(List.of("orders"), status.config().collections());
    assertEquals(500, status.config().settings().batchSize(), "the rest of the edit applies");
    assertTrue(status.recentRejectedEdits().get(0).reason().contains("ghosts"),
        status.recentRejectedEdits().toString());
    assertEquals(MirrorPhase.RUNNING, status.state());
  }

  // ---- the system under test ----

  private static MirrorConfig mirror(List<String> collections, SnapshotSettings snapshotSettings) {
    String name = "snap" + MIRRORS.incrementAndGet();
    return new MirrorConfig(name, SOURCE_PEER, DESTINATION_PEER, DATABASE, collections, name,
        MirrorSettings.defaults().toBuilder().batchSize(1_000).idleTimeoutSeconds(1).maxBatchDurationSeconds(600)
            .decodeWorkers(2).chunkSize(16).snapshot(snapshotSettings).build());
  }

  private CdcFlowWorkflow start(ScriptedWorld world, MirrorConfig mirror) {
    fixture.start().startWorker(fixture.peers(), TestPorts.postgres(fixture).source(world.source()).build());
    return fixture.temporal().start(mirror);
  }

  /** Captures the mirror's history for the replay tests, once its run has closed. */
  private void captureWhenClosed(MirrorConfig mirror, String name) {
    fixture.temporal().captureWhenClosed(mirror.name(), name);
  }

  /** A gate already open: arming it only marks an open of the source as seen. */
  private static Gate passThrough() {
    Gate gate = new Gate();
    gate.release();
    return gate;
  }

  private static long catalogDocumentsCopied(String mirror) throws SQLException {
    try (Connection c = fixture.catalog().getConnection();
        PreparedStatement st = c.prepareStatement(
            "select documents_copied from mongo_cdc.snapshot_progress where mirror = ?")) {
      st.setString(1, mirror);
      try (ResultSet rs = st.executeQuery()) {
        assertTrue(rs.next());
        return rs.getLong(1);
      }
    }
  }

  private static void awaitGate(Gate gate) throws InterruptedException {
    assertTrue(gate.awaitReached(Duration.ofSeconds(30)), "the snapshot never got to the gate");
  }

  /** Records every write to the table with its position, in commit order per row. */
  private static void installAudit(String table) throws SQLException {
    String audit = table.replace("\"", "").replace('.', '_') + "_audit";
    try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement()) {
      st.execute("create table \"" + audit + "\" (seq bigserial primary key, id text, position text collate \"C\")");
      st.execute("create function \"" + audit + "_fn\"() returns trigger language plpgsql as $$ begin "
          + "insert into \"" + audit + "\" (id, position) values (new.\"_id\", new.\"_position\"); return new; end $$");
      // The batches stream beside the copy: a lane's open transaction holds the table's lock
      // that the trigger needs, and a trigger queued behind it stops the lanes meanwhile. Asked
      // again, each time waiting a second at most, so neither waits for the other for long.
      st.execute("set lock_timeout = '1s'");
      for (int attempt = 1; ; attempt++) {
        try {
          st.execute("create trigger audit after insert or update on " + table
              + " for each row execute function \"" + audit + "_fn\"()");
          return;
        } catch (SQLException e) {
          if (!"55P03".equals(e.getSQLState()) || attempt == 60) {
            throw e;
          }
        }
      }
    }
  }

  private static void assertNoRowWentBackwards(String table) throws SQLException {
    String audit = table.replace("\"", "").replace('.', '_') + "_audit";
    Map<String, String> last = new HashMap<>();
    int writes = 0;
    try (Connection c = fixture.destination().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select id, position from \"" + audit + "\" order by seq")) {
      while (rs.next()) {
        writes++;
        String previous = last.put(rs.getString(1), rs.getString(2));
        if (previous != null && previous.compareTo(rs.getString(2)) > 0) {
          fail("row " + rs.getString(1) + " went back from " + previous + " to " + rs.getString(2));
        }
      }
    }
    assertTrue(writes > 0, "the audit saw the writes");
  }
}
