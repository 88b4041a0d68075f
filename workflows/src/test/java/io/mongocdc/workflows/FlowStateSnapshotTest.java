package io.mongocdc.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.InvalidEditException;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.OplogSpan;
import io.mongocdc.workflows.model.SnapshotPartitionCopied;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotProgress;
import io.mongocdc.workflows.model.SnapshotSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Snapshot progress in the workflow's state, and edits that add collections. */
class FlowStateSnapshotTest {

  private static final Checkpoint START = Checkpoint.atOperationTime(1_700_000_000, 1);
  private static final Checkpoint LATER = Checkpoint.afterToken("8265", 1_700_000_100, 3);

  private static FlowState state(List<String> collections, MirrorSettings settings) {
    FlowState state = new FlowState(CarriedState.initial(
        new MirrorConfig("orders", "src", "dst", "shop", collections, "public", settings)));
    state.carried.checkpoint = START;
    state.carried.setUp = true;
    return state;
  }

  @Test
  void progressFollowsPlansAndCopiedPartitionsAndSurvivesContinueAsNew() {
    FlowState state = state(List.of("orders", "items"), MirrorSettings.defaults());
    state.copies.start(List.of("orders", "items"));
    assertTrue(state.copies.pending());

    state.copies.planned(new SnapshotPlan("orders", 3, List.of(1, 2), 40, 0), 0);
    state.copies.planned(new SnapshotPlan("items", 1, List.of(), 7, 0), 0);
    state.copies.partitionCopied(new SnapshotPartitionCopied("orders", 1, 50, 500, null, null), 0);

    SnapshotProgress orders = state.status(0).snapshots().get(0);
    assertEquals(new SnapshotProgress("orders", START, SnapshotProgress.State.COPYING, 3, 2, 90, 0, 0L, null), orders);
    assertEquals(SnapshotProgress.State.DONE, state.status(0).snapshots().get(1).state(),
        "a plan with nothing pending is done");

    FlowState next = new FlowState(CarriedStateTest.throughTheDataConverter(state.carry()));
    assertEquals(state.status(0).snapshots(), next.status(0).snapshots());
    next.copies.partitionCopied(new SnapshotPartitionCopied("orders", 2, 10, 100, null, null), 0);
    assertFalse(next.copies.pending());
    assertEquals(100, next.status(0).snapshots().get(0).documentsCopied());
  }

  @Test
  void statusSaysTheCopysTimeLeftFromTheWorkflowsClock() {
    FlowState state = state(List.of("orders"), MirrorSettings.defaults());
    state.copies.start(List.of("orders"));
    assertEquals(null, state.status(1_000).copySecondsLeft(), "not planned: unknown");
    state.copies.planned(new SnapshotPlan("orders", 4, List.of(0, 1, 2, 3), 0, 4_000), 10_000);
    assertEquals(null, state.status(20_000).copySecondsLeft(), "no partition finished: unknown");
    assertEquals(null, state.status(20_000).oplogHeadroomSeconds(), "no batch or partition read the oplog yet");
    SnapshotPartitionCopied first = new SnapshotPartitionCopied("orders", 0, 1_000, 10_000, null,
        new OplogSpan(START.clusterTimeSeconds() - 900, START.clusterTimeSeconds() + 30));
    state.copies.partitionCopied(first, 30_000);
    state.oplogRead(first.oplog());
    // 1 000 documents in 20 s since the plan: 50 a second, 3 000 left.
    assertEquals(60L, state.status(30_000).copySecondsLeft());
    assertEquals(900L, state.status(30_000).oplogHeadroomSeconds(),
        "the partition's oplog span gives the starting point's headroom before any batch");

    FlowState next = new FlowState(CarriedStateTest.throughTheDataConverter(state.carry()));
    assertEquals(60L, next.status(30_000).copySecondsLeft(), "carried over continue-as-new");
    for (int partition = 1; partition < 4; partition++) {
      next.copies.partitionCopied(new SnapshotPartitionCopied("orders", partition, 1_000, 10_000, null, null), 40_000);
    }
    assertEquals(0L, next.status(50_000).copySecondsLeft(), "done");
  }

  @Test
  void aSnapshotCarriedByAnOlderWorkerReadsWithoutItsPlanTimeAndItsTimeLeftIsUnknown() throws Exception {
    String old = "{\"collection\":\"orders\",\"position\":{\"resumeToken\":null,\"clusterTimeSeconds\":1700000000,"
        + "\"clusterTimeIncrement\":1},\"state\":\"COPYING\",\"partitionsTotal\":3,\"partitionsDone\":2,"
        + "\"documentsCopied\":90}";
    SnapshotProgress read = io.temporal.common.converter.JacksonJsonPayloadConverter.newDefaultObjectMapper()
        .readValue(old, SnapshotProgress.class);
    assertEquals(new SnapshotProgress("orders", START, SnapshotProgress.State.COPYING, 3, 2, 90, 0, null, null), read);
    assertEquals(null, io.mongocdc.workflows.model.CopyTimeLeft.seconds(List.of(read), 1_000));
    SnapshotProgress replanned = read.planned(new SnapshotPlan("orders", 3, List.of(2), 90, 0), 5_000);
    assertEquals(5_000L, replanned.plannedAtMillis(), "its next plan starts its clock");
  }

  @Test
  void collectionsCopiedAgainArePlannedAfreshAndSweptUnlessAFilterLeavesDocumentsOut() {
    MirrorSettings filtered = MirrorSettings.defaults().apply(
        EditRequest.fromJson(Map.of("snapshotFilters", Map.of("items", "{\"status\": \"active\"}"))));
    FlowState state = state(List.of("orders", "items"), filtered);
    state.copies.start(List.of("orders", "items"));
    state.copies.planned(new SnapshotPlan("orders", 1, List.of(), 40, 0), 0);
    state.copies.planned(new SnapshotPlan("items", 1, List.of(), 7, 0), 0);
    state.carried.checkpoint = LATER;

    new EditChecks(state).check(Map.of("resyncCollections", List.of("orders", "items")));
    state.carried.pendingEdits.add(EditRequest.fromJson(Map.of("resyncCollections", List.of("orders", "items"))));
    state.edits.apply();

    assertEquals(List.of(SnapshotProgress.pending("orders", LATER), SnapshotProgress.pending("items", LATER)),
        state.status(0).snapshots(), "both copied again from the checkpoint now");
    assertEquals(List.of("orders", "items"), state.carried.freshSnapshotPlans);
    assertEquals(List.of("orders"), state.carried.sweepPending, "items has a filter: its other rows stay");
    InvalidEditException again = assertThrows(InvalidEditException.class,
        () -> new EditChecks(state).check(Map.of("resyncCollections", List.of("orders"))));
    assertEquals(List.of("resyncCollections: 'orders' is being copied already"), again.problems());
    InvalidEditException other = assertThrows(InvalidEditException.class,
        () -> new EditChecks(state).check(Map.of("resyncCollections", List.of("refunds"))));
    assertEquals(List.of("resyncCollections: 'refunds' is not a collection of this mirror (orders, items)"),
        other.problems());
    state.copies.planned(new SnapshotPlan("orders", 1, List.of(0), 40, 0), 0);
    assertEquals(List.of("items"), state.carried.freshSnapshotPlans, "planned once afresh, not again");
  }

  @Test
  void addedCollectionsAreSnapshottedFromTheCommittedCheckpoint() {
    FlowState state = state(List.of("orders"), MirrorSettings.defaults());
    state.carried.checkpoint = LATER;
    state.carried.pendingEdits.add(new EditChecks(state).check(Map.of("addCollections", List.of("items", "users"))));
    assertEquals(List.of("items", "users"), state.edits.collectionsToAdd());
    assertEquals(List.of("orders"), state.carried.config.collections(), "nothing changes before the step boundary");

    state.edits.apply();

    assertEquals(List.of("orders", "items", "users"), state.carried.config.collections());
    assertEquals(List.of(SnapshotProgress.pending("items", LATER), SnapshotProgress.pending("users", LATER)),
        state.carried.snapshots);
  }

  @Test
  void withSnapshotsOffAnAddedCollectionIsOnlyReplicated() {
    FlowState state = state(List.of("orders"), MirrorSettings.defaults().withSnapshot(SnapshotSettings.off()));
    state.carried.pendingEdits.add(new EditChecks(state).check(Map.of("addCollections", List.of("items"))));
    state.edits.apply();
    assertEquals(List.of("orders", "items"), state.carried.config.collections());
    assertFalse(state.copies.pending());
  }

  @Test
  void addingACollectionTwiceOrToAMirrorOfEveryCollectionIsRejected() {
    FlowState state = state(List.of("orders"), MirrorSettings.defaults());
    state.carried.pendingEdits.add(new EditChecks(state).check(Map.of("addCollections", List.of("items"))));

    InvalidEditException twice = assertThrows(InvalidEditException.class,
        () -> new EditChecks(state).check(Map.of("addCollections", List.of("orders", "items", " "))));
    assertTrue(twice.getMessage().contains("'orders' is already replicated"), twice.getMessage());
    assertTrue(twice.getMessage().contains("'items' is already replicated or being added"), twice.getMessage());
    assertTrue(twice.getMessage().contains("must not be blank"), twice.getMessage());

    FlowState everything = state(List.of(), MirrorSettings.defaults());
    InvalidEditException all = assertThrows(InvalidEditException.class,
        () -> new EditChecks(everything).check(Map.of("addCollections", List.of("items"))));
    assertTrue(all.getMessage().contains("replicates every collection of shop already"), all.getMessage());
  }

  @Test
  void aFilterMustNameACollectionOfTheMirrorIncludingOneBeingAdded() {
    FlowState state = state(List.of("orders"), MirrorSettings.defaults());
    InvalidEditException unknown = assertThrows(InvalidEditException.class,
        () -> new EditChecks(state).check(Map.of("snapshotFilters", Map.of("items", "{\"a\": 1}"))));
    assertTrue(unknown.getMessage().contains("snapshotFilters: 'items' is not one of the mirror's collections"),
        unknown.getMessage());

    EditRequest both = new EditChecks(state).check(Map.of("addCollections", List.of("items"),
        "snapshotFilters", Map.of("items", Map.of("status", "active"))));
    assertEquals(Map.of("items", "{\"status\":\"active\"}"), both.snapshotFilters());
  }

  @Test
  void refusedCollectionsLeaveTheRestOfTheEditPending() {
    FlowState state = state(List.of("orders"), MirrorSettings.defaults());
    state.carried.pendingEdits.add(new EditChecks(state).check(Map.of("addCollections", List.of("nope"), "batchSize", 10)));
    state.carried.pendingEdits.add(new EditChecks(state).check(Map.of("addCollections", List.of("nada"))));

    state.edits.rejectAddedCollections(5, "InvalidConfiguration: collection nope does not exist");

    assertEquals(List.of(), state.edits.collectionsToAdd());
    assertEquals(1, state.carried.pendingEdits.size());
    assertEquals(10, (int) state.carried.pendingEdits.get(0).get(MirrorSettings.BATCH_SIZE));
    assertEquals("{\"addCollections\":[\"nope\",\"nada\"]}", state.carried.rejectedEdits.get(0).request());
    assertTrue(state.carried.rejectedEdits.get(0).reason().contains("does not exist"));
  }

  @Test
  void settingsWrittenBeforeSnapshotsExistedReadAsTheDefaults() throws Exception {
    String old = "{\"batchSize\":10,\"idleTimeoutSeconds\":2,\"maxBatchDurationSeconds\":60,\"decodeWorkers\":1,"
        + "\"chunkSize\":8,\"excludedOperations\":[],\"controlEventPolicy\":\"PAUSE\",\"continueAsNewEveryBatches\":5}";
    MirrorSettings settings = new ObjectMapper().readValue(old, MirrorSettings.class);
    assertEquals(SnapshotSettings.defaults(), settings.snapshot());
    assertFalse(settings.splitLargeEvents());
    assertEquals(List.of(), settings.problems());
  }
}
