package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.source.scripted.Gate;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Timeout;

/** Invariant 5: memory is bounded by the in-flight settings, and back-pressure reaches the reader. */
@ExtendWith(PipelineCleanup.class)
@Timeout(30)
class BackPressureTest {


  @Test
  void aStalledSinkStopsTheReaderAfterTheInFlightBound() throws Exception {
    int chunkSize = 10;
    int inFlight = 3;
    PullFixture fixture = new PullFixture(Workload.inserts(10_000));
    fixture.mirror.decodeWorkers(2).chunkSize(chunkSize);
    fixture.settings.maxInFlightChunks(inFlight).progressInterval(Duration.ofMillis(5));
    RecordingSink sink = new RecordingSink();
    Gate firstWrite = sink.blockWrite(0);
    CountDownLatch queueFullReported = new CountDownLatch(1);

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink, progress -> {
      if (progress.chunksInFlight() == inFlight) {
        queueFullReported.countDown();
      }
    });
    assertTrue(firstWrite.awaitReached(Duration.ofSeconds(20)));
    PipelineThreads.awaitReaderWaitingForInFlightSlot();

    // In flight: the chunk the sink holds and two more; the reader fills one more and waits.
    assertEquals((inFlight + 1) * chunkSize, fixture.stream.eventsYielded());
    assertTrue(queueFullReported.await(20, TimeUnit.SECONDS), "progress shows the full decode queue");
    firstWrite.release();
    assertEquals(10_000, probe.result().recordsDelivered());
  }

  @Test
  void parallelismAboveTheInFlightBoundIsHonoured() throws Exception {
    int workers = 8;
    ScriptedRenderer renderer = new ScriptedRenderer();
    // Each of the first 8 documents (one per chunk) waits until all 8 are being decoded at once:
    // only possible if 8 chunks are in flight although the configured bound is 2.
    CyclicBarrier allWorkersBusy = new CyclicBarrier(workers);
    for (int n = 0; n < workers; n++) {
      renderer.barrierAt(n, allWorkersBusy);
    }
    PullFixture fixture = new PullFixture(Workload.inserts(64)).renderer(renderer);
    fixture.mirror.decodeWorkers(workers).chunkSize(1);
    fixture.settings.maxInFlightChunks(2);
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    assertEquals(64, result.recordsDelivered());
    fixture.assertDeliveredInOrder(sink.committed(), 0, 64);
  }
}
