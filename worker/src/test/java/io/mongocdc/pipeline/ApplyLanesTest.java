package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.Gate;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Ordered parallel apply: records routed to several sinks (apply lanes), each written by a
 * thread of its own. Each invariant of the pipeline holds with lanes too; the bad interleavings
 * are forced with gates on the lanes' sinks.
 */
@ExtendWith(PipelineCleanup.class)
@Timeout(60)
class ApplyLanesTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private static Gate releasedAfterTest(Gate gate) {
    return PipelineCleanup.opensAfterTest(gate);
  }

  private PullOutcomeProbe started(PullFixture fixture, List<? extends RecordSink> lanes) {
    return PullOutcomeProbe.start(fixture, lanes);
  }

  @Test
  void everyDocumentStaysOnOneLaneInSourceOrderAndTheLanesTogetherGetEveryRecordOnce() throws Exception {
    PullFixture fixture = new PullFixture(Workload.mixed(7, 600));
    fixture.mirror.chunkSize(16).decodeWorkers(4);
    fixture.settings.commitIntervalRecords(100);
    List<RecordingSink> lanes = List.of(new RecordingSink(), new RecordingSink(), new RecordingSink());

    PullResult result = started(fixture, lanes).result();

    assertEquals(600, result.recordsDelivered());
    Map<String, Integer> laneOfDocument = new HashMap<>();
    List<ChangeRecord> all = new ArrayList<>();
    for (int lane = 0; lane < lanes.size(); lane++) {
      List<ChangeRecord> committed = lanes.get(lane).committed();
      assertTrue(!committed.isEmpty(), "lane " + lane + " got work");
      List<ResumeToken> positions = PullFixture.positions(committed);
      assertEquals(positions.stream().sorted().toList(), positions, "lane " + lane + " got its records in source order");
      for (ChangeRecord record : committed) {
        Integer before = laneOfDocument.putIfAbsent(record.table() + "/" + record.key(), lane);
        assertEquals(before == null ? lane : before, lane, "document " + record.key() + " went to one lane");
        assertEquals(ApplyRouting.laneOf(record, lanes.size()), lane);
      }
      all.addAll(committed);
    }
    all.sort(Comparator.comparing(ChangeRecord::position));
    fixture.assertDeliveredInOrder(all, 0, 600);
  }

  @Test
  void theCheckpointMovesOnlyOnceEveryLaneHasCommittedAndStaysThereWhenOneLaneFails() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(200));
    // Chunks of 16: the first commit round follows chunk 3 (64 records), the second chunk 7.
    fixture.mirror.chunkSize(16).decodeWorkers(2);
    fixture.settings.commitIntervalRecords(64);
    RecordingSink first = new RecordingSink();
    RecordingSink second = new RecordingSink();
    Gate secondLanesSecondCommit = releasedAfterTest(second.blockCommit(1));
    IOException lost = new IOException("connection lost during commit");
    second.failCommit(1, lost);

    PullOutcomeProbe probe = started(fixture, List.of(first, second));
    assertTrue(secondLanesSecondCommit.awaitReached(WAIT));
    // The other lane's commit of the same round goes through while this one hangs...
    PipelineConditions.await(() -> first.commits() == 2, "the first lane commits its second round");
    secondLanesSecondCommit.release(); // ...then this one fails.
    PullRecordsException error = probe.failure();

    assertSame(lost, error.getCause());
    assertEquals(StreamPosition.after(fixture.stream.tokenOf(63)), error.deliveredCheckpoint(),
        "the checkpoint is where both lanes last committed, not where one of them did");
    assertTrue(PullFixture.positions(first.committed()).stream()
            .anyMatch(t -> t.compareTo(fixture.stream.tokenOf(63)) > 0),
        "the first lane did commit records past the checkpoint (replayed idempotently later)");
    assertNotNull(first.abortCause(), "every lane is told to discard what it holds");
  }

  @Test
  void aLaneThatFailsFailsThePullAtOnceWithItsOwnErrorWhileAnotherLaneIsBlocked() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(200));
    fixture.mirror.chunkSize(16).decodeWorkers(2);
    RecordingSink blocked = new RecordingSink();
    RecordingSink failing = new RecordingSink();
    Gate blockedWrite = releasedAfterTest(blocked.blockWrite(0)); // never released: only the abort ends it
    Gate failingWrite = releasedAfterTest(failing.blockWrite(0));
    IOException rejected = new IOException("destination rejected the batch");
    failing.failWrite(0, rejected);

    PullOutcomeProbe probe = started(fixture, List.of(blocked, failing));
    assertTrue(blockedWrite.awaitReached(WAIT));
    assertTrue(failingWrite.awaitReached(WAIT));
    failingWrite.release();
    PullRecordsException error = probe.failure();

    assertSame(rejected, error.getCause(), "the first error, not the interrupted lane's");
    assertEquals(PullFixture.START, error.deliveredCheckpoint());
    assertEquals(0, blocked.commits() + failing.commits());
    assertSame(rejected, blocked.abortCause());
  }

  @Test
  void aStalledLaneHoldsTheReaderBackWithinTheConfiguredBound() throws Exception {
    int chunkSize = 10;
    int inFlight = 4;
    int laneCount = 2;
    PullFixture fixture = new PullFixture(Workload.inserts(5_000));
    fixture.mirror.decodeWorkers(2).chunkSize(chunkSize);
    fixture.settings.maxInFlightChunks(inFlight);
    RecordingSink stalled = new RecordingSink();
    Gate stalledWrite = releasedAfterTest(stalled.blockWrite(0));

    PullOutcomeProbe probe = started(fixture, List.of(stalled, new RecordingSink()));
    assertTrue(stalledWrite.awaitReached(WAIT));
    PipelineThreads.awaitSenderWaitingForAFullLane();
    PipelineThreads.awaitReaderWaitingForInFlightSlot();

    // In memory at most: the in-flight chunks, the one the sender holds, and per lane the part
    // it writes plus its queue; the reader has cut one more chunk and waits.
    int bound = (inFlight + 1 + laneCount * (PullRun.APPLY_QUEUE_CHUNKS + 1) + 1) * chunkSize;
    assertTrue(fixture.stream.eventsYielded() <= bound,
        fixture.stream.eventsYielded() + " events read with one lane stalled; at most " + bound);
    stalledWrite.release();
    assertEquals(5_000, probe.result().recordsDelivered());
  }

  @Test
  void aLaneStillInsideAWriteThatIgnoresInterruptsIsJoinedBeforeThePullReturns() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(200));
    fixture.mirror.chunkSize(16).decodeWorkers(2);
    UninterruptibleSink slow = UninterruptibleSink.untilAborted();
    RecordingSink failing = new RecordingSink();
    Gate failingWrite = releasedAfterTest(failing.blockWrite(0));
    failing.failWrite(0, new IOException("destination rejected the batch"));

    PullOutcomeProbe probe = started(fixture, List.of(slow, failing));
    assertTrue(slow.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS));
    assertTrue(failingWrite.awaitReached(WAIT));
    failingWrite.release();
    probe.failure();

    assertTrue(slow.finished.get(), "the pull returned while a lane was still inside the sink");
  }
}
