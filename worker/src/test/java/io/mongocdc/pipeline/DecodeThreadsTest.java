package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.DocumentRenderer;
import io.mongocdc.decode.DriverJsonRenderer;
import io.mongocdc.source.scripted.Gate;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Pulls of one worker share its decode threads: however many mirrors decode, and however many
 * decodeWorkers each has, no more chunks decode at once than the worker's cap, a pull waiting for
 * a slot gets it once one is free, and a pull cancelled while it waits stops and leaves nothing.
 */
@ExtendWith(PipelineCleanup.class)
@Timeout(60)
class DecodeThreadsTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final int EVENTS = 64;

  @Test
  void aSecondMirrorDecodesOnlyWhenTheFirstFreesTheWorkersOnlyDecodeThread() throws Exception {
    DecodeThreads shared = new DecodeThreads(1);
    ScriptedRenderer first = new ScriptedRenderer();
    Gate firstDecode = first.blockAt(0);
    CountingRenderer second = new CountingRenderer();
    PullFixture a = fixture(shared, first);
    PullFixture b = fixture(shared, second);
    RecordingSink aSink = new RecordingSink();
    RecordingSink bSink = new RecordingSink();

    PullOutcomeProbe aPull = PullOutcomeProbe.start(a, aSink);
    assertTrue(firstDecode.awaitReached(WAIT), "the first mirror decodes");
    PullOutcomeProbe bPull = PullOutcomeProbe.start(b, bSink);
    // Either the second mirror's decode waits for the slot, or (without a shared cap) it runs.
    PipelineConditions.await(() -> shared.waiting() > 0 || second.rendered.get() > 0, "the second mirror tries to decode");
    assertEquals(0, second.rendered.get(), "the second mirror decoded while the first held the only decode thread");
    assertEquals(1, shared.busy());

    firstDecode.release();
    assertEquals(EVENTS, aPull.result().recordsDelivered());
    assertEquals(EVENTS, bPull.result().recordsDelivered());
    a.assertDeliveredInOrder(aSink.committed(), 0, EVENTS);
    b.assertDeliveredInOrder(bSink.committed(), 0, EVENTS);
    assertEquals(1, shared.highWaterMark(), "never more than one decode at once over both mirrors");
    assertEquals(0, shared.busy());
  }

  @Test
  void aPullCancelledWhileItWaitsForADecodeThreadStopsAndTheOtherGoesOn() throws Exception {
    DecodeThreads shared = new DecodeThreads(1);
    ScriptedRenderer first = new ScriptedRenderer();
    Gate firstDecode = first.blockAt(0);
    PullFixture a = fixture(shared, first);
    PullFixture b = fixture(shared, new DriverJsonRenderer());
    RecordingSink aSink = new RecordingSink();

    PullOutcomeProbe aPull = PullOutcomeProbe.start(a, aSink);
    assertTrue(firstDecode.awaitReached(WAIT));
    PullOutcomeProbe bPull = PullOutcomeProbe.start(b, new RecordingSink());
    PipelineConditions.await(() -> shared.waiting() > 0, "the second mirror waits for the decode thread");

    bPull.cancel();
    assertInstanceOf(InterruptedException.class, bPull.thrown(), "the cancelled pull returns while the slot is held");
    firstDecode.release();
    assertEquals(EVENTS, aPull.result().recordsDelivered());
    a.assertDeliveredInOrder(aSink.committed(), 0, EVENTS);
    assertEquals(0, shared.waiting());
    assertEquals(0, shared.busy(), "the cancelled pull holds no slot");
  }

  @Test
  void aPullMakesNoMoreDecodeThreadsThanTheWorkerAllows() throws Exception {
    DecodeThreads shared = new DecodeThreads(2);
    ScriptedRenderer renderer = new ScriptedRenderer();
    Gate firstDecode = renderer.blockAt(0);
    PullFixture fixture = fixture(shared, renderer);

    PullOutcomeProbe pull = PullOutcomeProbe.start(fixture, new RecordingSink());
    assertTrue(firstDecode.awaitReached(WAIT));
    // The sender waits for the blocked first chunk, so the reader fills every in-flight slot:
    // at least decodeWorkers chunks were handed to the pool.
    PipelineThreads.awaitReaderWaitingForInFlightSlot();
    long decodeThreads = PipelineThreads.alive().stream().filter(name -> name.contains("-decode-")).count();
    assertEquals(2, decodeThreads, "decodeWorkers 4, but the worker allows 2: " + PipelineThreads.alive());
    firstDecode.release();
    assertEquals(EVENTS, pull.result().recordsDelivered());
  }

  private static PullFixture fixture(DecodeThreads shared, DocumentRenderer renderer) {
    PullFixture fixture = new PullFixture(Workload.inserts(EVENTS)).renderer(renderer).decodeThreads(shared);
    fixture.mirror.decodeWorkers(4).chunkSize(4).batchSize(EVENTS);
    return fixture;
  }
}
