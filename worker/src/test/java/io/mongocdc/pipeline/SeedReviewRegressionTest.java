package io.mongocdc.pipeline;

import io.mongocdc.workflows.model.ControlEventPolicy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeEventDecodeException;
import io.mongocdc.decode.ControlEvent;
import io.mongocdc.decode.DocumentRenderException;
import io.mongocdc.decode.Namespace;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.source.scripted.Gate;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Timeout;

/**
 * One regression test per defect found in the design review of the Go pipeline this project
 * grew out of (shared/seed/pr-discussion.txt), named after what it guards.
 *
 * <ul>
 *   <li>1. WaitGroup.Add inside the goroutine: the sender ran after PullRecords returned and
 *       wrote to a closed stream: {@link #theSinkIsNeverCalledAfterPullReturns}, and with a sink
 *       call that ignores interrupts as JDBC does,
 *       {@link #pullReturnsOnlyOnceASinkCallThatIgnoresInterruptsHasEnded}.
 *   <li>2. drop / rename reached the decoder and failed every retry; no default branch sent a
 *       nil record: {@link #dropAndRenameNeverFailTheBatchOrBecomeRecords}, and
 *       {@link ControlEventTest} for every control type and unknown types.
 *   <li>3. drainWorkers raced a buffered worker error and returned success:
 *       {@link #aWorkerErrorInTheLastChunkBeforeTheBatchCutIsNeverSwallowed}, and with the
 *       interleaving forced (the sender already waiting on the failing chunk),
 *       {@link #aLastChunkThatFailsWhileTheSenderWaitsOnItFailsThePull}. In a whole pull the
 *       reader's early report of the same failure races with the sender, so the sender's own
 *       handling is pinned down alone, every time, by
 *       {@link ChunkSenderTest#aChunkWhoseDecodeFailedFailsTheSenderAndNothingIsCommitted}.
 *   <li>4. the producer's send had no cancellation case and hung under back-pressure:
 *       {@link #cancellationWhileTheReaderWaitsOnBackPressureReturnsPromptly}.
 *   <li>Second review 1. decode threads &lt;= 0 wedged or panicked:
 *       {@link #nonPositiveDecodeWorkersAreRejectedWhenGiven}.
 *   <li>Second review 2. after a worker error the pull kept reading a whole batch:
 *       {@link #aWorkerErrorStopsReadingBeforeTheBatchCut}.
 *   <li>Second review 3. the first batch could persist an empty checkpoint:
 *       {@link #theCheckpointIsNeverEmptyWhenAStartWasGiven}.
 *   <li>Second review 4. parallelism silently capped by the buffer size:
 *       {@link BackPressureTest#parallelismAboveTheInFlightBoundIsHonoured}.
 *   <li>Flaky TestPullRecordsWorkerPoolErrorFromWorker: which error wins was a race:
 *       {@link #theFirstErrorIsReportedNeverALaterOne}.
 *   <li>Checkpoint ahead of delivered records when the sink fails mid-batch:
 *       {@link #theCheckpointNeverCoversRecordsTheSinkDidNotCommit}.
 *   <li>Stream recreation after "resume token not found" mid-batch was untested:
 *       {@link StreamReopenTest#resumeTokenNotFoundMidBatchReopensWithoutGapOrDuplicate}.
 * </ul>
 */
@ExtendWith(PipelineCleanup.class)
@Timeout(60)
class SeedReviewRegressionTest {

  private static final Duration WAIT = Duration.ofSeconds(20);


  @RepeatedTest(20)
  void theSinkIsNeverCalledAfterPullReturns() throws Exception {
    // Batches of at most 10 records, where the Go version's channels never blocked.
    PullFixture fixture = new PullFixture(Workload.inserts(8));
    fixture.mirror.decodeWorkers(8).chunkSize(1);
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);
    sink.close();

    PipelineThreads.assertNoneAlive();
    assertEquals(0, sink.callsAfterClose());
    assertEquals(8, result.recordsDelivered());
    fixture.assertDeliveredInOrder(sink.committed(), 0, 8);
  }

  @Test
  void dropAndRenameNeverFailTheBatchOrBecomeRecords() throws Exception {
    Namespace orders = Workload.ORDERS;
    ChangeEvents events = new ChangeEvents();
    List<RawBsonDocument> script = new ArrayList<>();
    script.add(events.insert(orders, Workload.document(0, 0)));
    script.add(events.rename(orders, new Namespace("shop", "archive")));
    script.add(events.insert(orders, Workload.document(2, 2)));
    script.add(events.drop(orders));
    script.add(events.insert(orders, Workload.document(4, 4)));
    PullFixture fixture = new PullFixture(script);

    // Default policy: the batch succeeds up to the rename and says so; a retry meets it again.
    PullRecords pullRecords = fixture.pullRecords();
    PullResult first = pullRecords.pull(PullFixture.START, new RecordingSink(), ProgressListener.none());
    PullResult again = pullRecords.pull(first.checkpoint(), new RecordingSink(), ProgressListener.none());
    assertEquals(ControlEvent.Type.RENAME, first.stoppedAt().type());
    assertEquals(first.checkpoint(), again.checkpoint());
    assertEquals(ControlEvent.Type.RENAME, again.stoppedAt().type());

    // Ignored: both are counted, the records around them all arrive, none is null.
    fixture.mirror.controlEventPolicy(ControlEventPolicy.IGNORE);
    RecordingSink sink = new RecordingSink();
    PullResult ignored = fixture.pull(sink);
    assertEquals(List.of(fixture.stream.tokenOf(0), fixture.stream.tokenOf(2), fixture.stream.tokenOf(4)),
        PullFixture.positions(sink.committed()));
    assertEquals(2, ignored.controlEvents().size());
  }

  @RepeatedTest(25)
  void aWorkerErrorInTheLastChunkBeforeTheBatchCutIsNeverSwallowed() {
    ScriptedRenderer renderer = new ScriptedRenderer();
    renderer.failAt(95, new DocumentRenderException("bad value"));
    PullFixture fixture = new PullFixture(Workload.inserts(150)).renderer(renderer);
    fixture.mirror.batchSize(100).chunkSize(10).decodeWorkers(4);
    RecordingSink sink = new RecordingSink();

    PullRecordsException error = PullFixture.pullFailure(fixture, sink);

    ChangeEventDecodeException cause = assertInstanceOf(ChangeEventDecodeException.class, error.getCause());
    assertEquals(fixture.stream.tokenOf(95), cause.position());
    assertEquals(0, sink.commits());
  }

  @Test
  void pullReturnsOnlyOnceASinkCallThatIgnoresInterruptsHasEnded() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(50));
    fixture.mirror.chunkSize(10);
    fixture.settings.shutdownTimeout(Duration.ofSeconds(20));
    Gate readerAtFailure = fixture.stream.blockAt(15);
    fixture.stream.failAt(15, new IllegalStateException("the source went away"));
    // The source fails while this write is in progress; the write returns 300 ms after the abort.
    UninterruptibleSink jdbcLike = UninterruptibleSink.untilAborted().onWrite(readerAtFailure::release);

    PullRecordsException error = PullFixture.pullFailure(fixture, jdbcLike);

    assertTrue(jdbcLike.finished.get(), "pull returned while the sender was still inside the sink");
    PipelineThreads.assertNoneAlive();
    assertTrue(error.getCause().getMessage().contains("the source went away"), error.getCause().toString());
  }

  @RepeatedTest(10)
  void aLastChunkThatFailsWhileTheSenderWaitsOnItFailsThePull() throws Exception {
    ScriptedRenderer renderer = new ScriptedRenderer();
    Gate lastChunk = renderer.blockAt(95);
    renderer.failAt(95, new DocumentRenderException("bad value"));
    PullFixture fixture = new PullFixture(Workload.inserts(150)).renderer(renderer);
    fixture.mirror.batchSize(100).chunkSize(10).decodeWorkers(4);
    RecordingSink sink = new RecordingSink();
    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink);
    try {
      assertTrue(lastChunk.awaitReached(WAIT));
      sink.awaitWritten(90, WAIT); // chunks 0..8 are written,
      PipelineThreads.awaitSenderWaitingForDecode(); // and the sender waits on chunk 9
      lastChunk.release();

      PullRecordsException error = probe.failure(); // never a success with chunk 9 skipped

      ChangeEventDecodeException cause = assertInstanceOf(ChangeEventDecodeException.class, error.getCause());
      assertEquals(fixture.stream.tokenOf(95), cause.position());
      assertEquals(90, sink.written().size(), "chunks 0..8 were written, chunk 9 never");
      assertEquals(0, sink.commits());
    } finally {
      lastChunk.release();
      probe.cancelAndAwait();
    }
  }

  @Test
  void cancellationWhileTheReaderWaitsOnBackPressureReturnsPromptly() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(5_000));
    fixture.mirror.decodeWorkers(2).chunkSize(10);
    fixture.settings.maxInFlightChunks(2);
    RecordingSink sink = new RecordingSink();
    Gate firstWrite = sink.blockWrite(0); // the destination stalls for good
    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink);
    assertTrue(firstWrite.awaitReached(WAIT));
    PipelineThreads.awaitReaderWaitingForInFlightSlot();

    probe.cancel();

    assertInstanceOf(InterruptedException.class, probe.thrown());
    assertEquals(0, fixture.stream.openCursorCount(), "cursor closed");
    assertEquals(0, sink.commits());
  }

  @Test
  void nonPositiveDecodeWorkersAreRejectedWhenGiven() {
    for (int workers : new int[] {0, -1}) {
      PullFixture fixture = new PullFixture(Workload.inserts(1));
      fixture.mirror.decodeWorkers(workers);
      IllegalArgumentException error = assertThrows(IllegalArgumentException.class, fixture::pullRecords);
      assertEquals("decodeWorkers must be between 1 and 256, got " + workers, error.getMessage());
    }
  }

  @Test
  void aWorkerErrorStopsReadingBeforeTheBatchCut() throws Exception {
    ScriptedRenderer renderer = new ScriptedRenderer();
    renderer.failAt(10, new DocumentRenderException("bad value"));
    PullFixture fixture = new PullFixture(Workload.inserts(2_000)).renderer(renderer);
    fixture.mirror.batchSize(100_000).chunkSize(5).decodeWorkers(2);
    fixture.settings.maxInFlightChunks(4);
    Gate farAway = fixture.stream.blockAt(1_000); // never released: reaching it would mean reading on
    RecordingSink sink = new RecordingSink();
    sink.blockWrite(0); // never released either: only the abort can end this pull

    PullRecordsException error = PullOutcomeProbe.start(fixture, sink).failure();

    assertInstanceOf(ChangeEventDecodeException.class, error.getCause());
    assertTrue(!farAway.isReached(), "the reader stopped long before the batch cut");
  }

  @Test
  void theCheckpointIsNeverEmptyWhenAStartWasGiven() throws Exception {
    PullFixture failing = new PullFixture(Workload.inserts(30));
    RecordingSink failingSink = new RecordingSink();
    failingSink.failWrite(0, new IOException("first write fails"));
    assertEquals(PullFixture.START, PullFixture.pullFailure(failing, failingSink).deliveredCheckpoint());

    PullFixture empty = new PullFixture(List.of());
    assertEquals(PullFixture.START, empty.pull(new RecordingSink()).checkpoint());
  }

  @RepeatedTest(20)
  void theFirstErrorIsReportedNeverALaterOne() throws Exception {
    ScriptedRenderer renderer = new ScriptedRenderer();
    Gate earlierChunk = renderer.blockAt(3);
    renderer.failAt(3, new DocumentRenderException("later error of an earlier chunk"));
    // Event 6 fails only once event 3 is being decoded, so it is the first error in time.
    Gate laterChunk = renderer.blockAt(6);
    renderer.failAt(6, new DocumentRenderException("first error"));
    PullFixture fixture = new PullFixture(Workload.inserts(20)).renderer(renderer);
    fixture.mirror.chunkSize(1).decodeWorkers(4);
    fixture.settings.maxInFlightChunks(8);
    RecordingSink sink = new RecordingSink();

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink);
    assertTrue(earlierChunk.awaitReached(WAIT));
    assertTrue(laterChunk.awaitReached(WAIT));
    laterChunk.release();
    PullRecordsException error = probe.failure(); // event 6 fails while event 3 still waits
    earlierChunk.release();

    ChangeEventDecodeException cause = assertInstanceOf(ChangeEventDecodeException.class, error.getCause());
    assertEquals(fixture.stream.tokenOf(6), cause.position());
    assertTrue(cause.getMessage().contains("first error"), cause.getMessage());
  }

  @Test
  void theCheckpointNeverCoversRecordsTheSinkDidNotCommit() {
    PullFixture fixture = new PullFixture(Workload.inserts(100));
    fixture.mirror.chunkSize(10);
    fixture.settings.commitIntervalRecords(20);
    RecordingSink sink = new RecordingSink();
    sink.failWrite(3, new IOException("destination went away"));

    PullRecordsException error = PullFixture.pullFailure(fixture, sink);

    // Writes 0 and 1 (records 0..19) were committed; write 2 was staged but not committed.
    assertEquals(StreamPosition.after(fixture.stream.tokenOf(19)), error.deliveredCheckpoint());
    fixture.assertDeliveredInOrder(sink.committed(), 0, 20);
  }
}
