package io.mongocdc.snapshot;

import static io.mongocdc.testing.WorkerEnvironment.awaitStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.source.scripted.Gate;
import io.mongocdc.testing.ScriptedWorld;
import io.mongocdc.testing.ScriptedWorld.ChangeMix;
import io.mongocdc.testing.TestPorts;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.OplogSpan;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.mongocdc.workflows.model.StopRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 48, item 4 (headroom guard), end to end: while a first snapshot keeps the batches waiting,
 * the mirror's status sets the copy's expected time left against the oplog headroom of its
 * starting point, which the copied partitions read before any batch has.
 */
class CopyHeadroomWorkflowTest {

  private static final String SOURCE_PEER = "guard-mongo";
  private static final String DESTINATION_PEER = "guard-pg";
  /** The oplog holds an hour before the starting point. */
  private static final OplogSpan SPAN = new OplogSpan(ScriptedWorld.START.getTime() - 3_600,
      ScriptedWorld.START.getTime() + 60);

  @RegisterExtension
  static final WorkflowTestExtension fixture = WorkflowTestExtension.withDatabases("guard", SOURCE_PEER,
      DESTINATION_PEER);

  @Test
  void whileTheFirstSnapshotCopiesStatusSaysItsTimeLeftAgainstTheStartingPointsHeadroom() throws Exception {
    ScriptedWorld world = new ScriptedWorld(5, ChangeMix.WITH_REPLACES);
    world.prefill("orders", 90);
    world.change("orders", 10);
    world.reveal(10);
    MirrorConfig mirror = new MirrorConfig("guard", SOURCE_PEER, DESTINATION_PEER, ScriptedWorld.DATABASE,
        List.of("orders"), "guard", MirrorSettings.defaults().toBuilder().batchSize(1_000).idleTimeoutSeconds(1)
            .maxBatchDurationSeconds(600).decodeWorkers(2).chunkSize(16)
            .snapshot(new SnapshotSettings(true, 30, 1, null)).build());
    // One partition at a time: the first copies, the second waits before its first document.
    Gate second = new Gate();
    world.snapshot().gateAt("orders", null, 1, passThrough());
    world.snapshot().gateAt("orders", null, 1, second);

    world.oplogSpan(SPAN);
    fixture.start().startWorker(fixture.peers(), TestPorts.postgres(fixture).source(world.source()).build());
    CdcFlowWorkflow workflow = fixture.temporal().start(mirror);
    assertTrue(second.awaitReached(Duration.ofSeconds(30)), "the snapshot never got to the second partition");
    MirrorStatus copying = awaitStatus(workflow, s -> !s.snapshots().isEmpty()
        && s.snapshots().get(0).partitionsDone() >= 1);

    assertEquals(MirrorPhase.SNAPSHOTTING, copying.state());
    assertEquals(0, copying.committedBatchId(), "no batch yet: the copy keeps them waiting");
    assertEquals(3_600L, copying.oplogHeadroomSeconds(), "the starting point's headroom, from the partition's read");
    assertNotNull(copying.copySecondsLeft(), "a partition finished: the copy has a rate");
    assertTrue(copying.copySecondsLeft() >= 0, copying.toString());

    second.release();
    MirrorStatus done = awaitStatus(workflow, s -> world.delivered(s, 9));
    workflow.terminate(new StopRequest(false));
    assertEquals(0L, done.copySecondsLeft(), "the copy is done");
  }


  private static Gate passThrough() {
    Gate gate = new Gate();
    gate.release();
    return gate;
  }
}
