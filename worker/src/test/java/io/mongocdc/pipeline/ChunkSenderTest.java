package io.mongocdc.pipeline;

import io.mongocdc.workflows.model.MirrorSettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DecodedEvent;
import io.mongocdc.decode.DocumentRenderException;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.TranscodingJsonRenderer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/**
 * The sender alone, fed chunks whose decode is already settled: what it does with a failed chunk
 * does not depend on the reader's early report of the same failure, which races with it in a
 * whole pull.
 */
class ChunkSenderTest {

  private final List<RawBsonDocument> events = Workload.inserts(20);
  private final PullFixture fixture = new PullFixture(events);
  private final ChangeEventDecoder decoder = new ChangeEventDecoder(TranscodingJsonRenderer.relaxed(),
      new IdKeyRenderer(), DestinationTableResolver.sourceName(), ns -> false, ColumnProjections.NONE);

  @Test
  void aChunkWhoseDecodeFailedFailsTheSenderAndNothingIsCommitted() throws Exception {
    LinkedBlockingQueue<ChunkInFlight> queue = new LinkedBlockingQueue<>();
    queue.add(new ChunkInFlight(0, CompletableFuture.completedFuture(decoded(0, 0, 10)), System.nanoTime()));
    DocumentRenderException failure = new DocumentRenderException("bad value");
    queue.add(new ChunkInFlight(1, CompletableFuture.failedFuture(failure), System.nanoTime()));
    queue.add(ChunkInFlight.END);
    RecordingSink sink = new RecordingSink();
    PullOutcome outcome = new PullOutcome(() -> {});
    ChunkSender sender = new ChunkSender("test", PullFixture.START, MirrorSettings.defaults(), PullSettings.defaults(), sink, List.of(), queue,
        new Semaphore(0), new PipelineCounters(), outcome, () -> {}, PoisonEvents.NONE, FreshnessListener.none(), CopyReplays.NONE,
        new CaughtUpSignal());

    sender.run();

    assertTrue(outcome.isDecided());
    assertSame(failure, outcome.failure(), "the chunk's own failure, not a success without it");
    assertEquals(10, sink.written().size(), "chunk 0 was written, chunk 1 never");
    assertEquals(0, sink.commits());
    assertEquals(PullFixture.START, sender.delivered().position());
    assertNull(sender.delivered().firstRecord());
  }

  private DecodedChunk decoded(long sequence, int from, int to) {
    List<DecodedEvent> decodedEvents = new ArrayList<>();
    for (int i = from; i < to; i++) {
      decodedEvents.add(decoder.decode(events.get(i), fixture.stream.tokenOf(i)));
    }
    return new DecodedChunk(sequence, decodedEvents, fixture.stream.tokenOf(to - 1), 0, DecodedBytesBudget.Lease.NONE);
  }
}
