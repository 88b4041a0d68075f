package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.DocumentRenderer;
import io.mongocdc.decode.DriverJsonKeyRenderer;
import io.mongocdc.decode.DriverJsonRenderer;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.source.scripted.Gate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Invariant 5 for decoded bytes: documents whose JSON is many times their BSON (control
 * characters) are held back by the decoded-bytes budget while the destination stalls, counted
 * from before they are decoded (the reader reserves the most a chunk can take), a chunk larger
 * than the whole budget still goes through, and a cancelled pull gives its bytes back.
 */
@ExtendWith(PipelineCleanup.class)
@Timeout(60)
class DecodedMemoryBoundTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  /** Each document holds this many control characters: 32 KiB of BSON, six times that of JSON. */
  private static final int CONTROL_CHARACTERS = 32 * 1024;
  private static final int EVENTS = 40;

  private final List<RawBsonDocument> events = hugeInserts(EVENTS);
  private final CountingRenderer renderer = new CountingRenderer(new DriverJsonRenderer());

  @Test
  void aStalledSinkHoldsTheDecodedBytesWithinTheBudget() throws Exception {
    PullFixture fixture = stalledPipeline();
    long[] sizes = decodedSizes(fixture);
    long[] reserved = reservations(fixture);
    Stalled stalled = stallFirstWrite(fixture, new DecodedBytesBudget(2 * max(reserved) + max(reserved) / 2));
    DecodedBytesBudget budget = stalled.budget();
    RecordingSink sink = stalled.sink();
    Gate firstWrite = stalled.firstWrite();
    PullOutcomeProbe probe = stalled.probe();

    // Chunk 0 in the sink and the chunks decoded behind it hold what they took; the reader waits
    // because the next chunk's reservation does not fit, so nothing more is decoded although 16
    // chunks may be in flight.
    int admitted = chunksThatFit(budget.maxBytes(), sizes, reserved);
    assertTrue(admitted < 16, "the budget, not the in-flight chunks, is the bound: " + admitted);
    // The reader may first wait for a chunk still being decoded to give back what it did not need.
    PipelineConditions.await(() -> budget.heldBytes() == sum(sizes, admitted), "the admitted chunks hold what they took");
    // Bytes given back wake the reader, which checks again before it waits again.
    PipelineThreads.awaitReadersWaitingForBudget(1);
    assertTrue(budget.highWaterMark() <= budget.maxBytes(), budget.highWaterMark() + " > " + budget.maxBytes());
    assertEquals(admitted, renderer.rendered.get(), "documents decoded while the sink stalls");

    firstWrite.release();
    PullResult result = probe.result();
    assertEquals(EVENTS, result.recordsDelivered());
    fixture.assertDeliveredInOrder(sink.committed(), 0, EVENTS);
    assertTrue(budget.highWaterMark() <= budget.maxBytes(), budget.highWaterMark() + " > " + budget.maxBytes());
    assertEquals(0, budget.heldBytes(), "every byte is given back");
  }

  @Test
  void cancellingWhileTheReaderWaitsForTheBudgetReturnsPromptlyAndGivesTheBytesBack() throws Exception {
    PullFixture fixture = stalledPipeline();
    fixture.settings.shutdownTimeout(Duration.ofSeconds(2));
    long[] reserved = reservations(fixture);
    Stalled stalled = stallFirstWrite(fixture, new DecodedBytesBudget(2 * max(reserved) + max(reserved) / 2));
    DecodedBytesBudget budget = stalled.budget();
    RecordingSink sink = stalled.sink();
    PullOutcomeProbe probe = stalled.probe();
    probe.cancel();

    Throwable thrown = probe.thrown();
    assertInstanceOf(InterruptedException.class, thrown);
    assertEquals(List.of(), Arrays.asList(thrown.getSuppressed()), "threads that did not stop within 2 s");
    PipelineThreads.assertNoneAlive();
    assertEquals(0, budget.heldBytes(), "the cancelled pull's bytes are back in the budget");
    assertEquals(0, sink.commits());
  }

  @Test
  void recordsQueuedForAStalledApplyLaneKeepTheirBytesUntilTheLaneHasWrittenThem() throws Exception {
    PullFixture fixture = stalledPipeline();
    long[] sizes = decodedSizes(fixture);
    long[] reserved = reservations(fixture);
    // Room for chunk 0 and one more reservation; once chunk 0 and the next chunk for its lane hold
    // what they took, no further reservation fits.
    DecodedBytesBudget budget = new DecodedBytesBudget(sizes[0] + max(reserved) + min(sizes) / 2);
    fixture.budget(budget);
    List<ChangeRecord> records = decodedRecords(fixture);
    int stalledLane = ApplyRouting.laneOf(records.get(0), 2);
    int nextForIt = 1;
    while (ApplyRouting.laneOf(records.get(nextForIt), 2) != stalledLane) {
      nextForIt++;
    }
    List<RecordingSink> sinks = List.of(new RecordingSink(), new RecordingSink());
    Gate stalledWrite = sinks.get(stalledLane).blockWrite(0);

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sinks);
    assertTrue(stalledWrite.awaitReached(WAIT));
    PipelineThreads.awaitReadersWaitingForBudget(1);
    int between = nextForIt - 1;
    PipelineConditions.await(() -> sinks.get(1 - stalledLane).written().size() == between,
        "the other lane wrote the chunks between");

    // Chunk 0 in the stalled lane's write and the next chunk queued for it hold the budget; the
    // chunks between went to the other lane, which wrote them and gave their bytes back.
    long queuedForIt = sizes[nextForIt];
    PipelineConditions.await(() -> budget.heldBytes() == sizes[0] + queuedForIt,
        "chunk 0 and the next chunk for its lane hold their bytes, the others gave theirs back");
    PipelineThreads.awaitReadersWaitingForBudget(1);
    assertEquals(nextForIt - 1, sinks.get(1 - stalledLane).written().size());
    assertTrue(budget.highWaterMark() <= budget.maxBytes(), budget.highWaterMark() + " > " + budget.maxBytes());

    stalledWrite.release();
    assertEquals(EVENTS, probe.result().recordsDelivered());
    assertEquals(0, budget.heldBytes());
  }

  @Test
  void aChunkLargerThanTheWholeBudgetGoesThroughAlone() throws Exception {
    PullFixture fixture = new PullFixture(events).renderer(renderer);
    fixture.mirror.decodeWorkers(4).chunkSize(1);
    long[] sizes = decodedSizes(fixture);
    long[] reserved = reservations(fixture);
    DecodedBytesBudget budget = new DecodedBytesBudget(min(sizes) / 4);
    fixture.budget(budget);
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    assertEquals(EVENTS, result.recordsDelivered());
    fixture.assertDeliveredInOrder(sink.committed(), 0, EVENTS);
    assertTrue(budget.highWaterMark() >= min(sizes), "a chunk over the budget was admitted");
    assertTrue(budget.highWaterMark() <= max(reserved), "never with another one: " + budget.highWaterMark());
    assertEquals(0, budget.heldBytes());
  }

  @Test
  void aChunkBeingDecodedIsInsideTheBudgetAndTheChunksAfterItWait() throws Exception {
    // Room for one chunk and a half of decoded text, less than one reservation: chunk 0 takes the
    // whole budget while it is decoded, so chunk 1 is not even read until chunk 0 has its size.
    ScriptedRenderer slowFirst = new ScriptedRenderer();
    Gate firstDocument = slowFirst.blockAt(0);
    PullFixture fixture = new PullFixture(events).renderer(slowFirst);
    fixture.mirror.decodeWorkers(2).chunkSize(1);
    long[] sizes = decodedSizes(fixture);
    long[] reserved = reservations(fixture);
    DecodedBytesBudget budget = new DecodedBytesBudget(max(sizes) + max(sizes) / 2);
    fixture.budget(budget);
    RecordingSink sink = new RecordingSink();

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink);
    assertTrue(firstDocument.awaitReached(WAIT));
    PipelineThreads.awaitReadersWaitingForBudget(1);
    assertEquals(reserved[0], budget.heldBytes(), "the chunk in the decoder holds its reservation");
    firstDocument.release();

    assertEquals(EVENTS, probe.result().recordsDelivered());
    fixture.assertDeliveredInOrder(sink.committed(), 0, EVENTS);
    assertEquals(0, budget.heldBytes());
  }

  @Test
  void aCancelledPullGivesItsBytesBackToAnotherPullOnTheSameBudget() throws Exception {
    PullFixture fixture = stalledPipeline();
    long[] reserved = reservations(fixture);
    Stalled stalled = stallFirstWrite(fixture, new DecodedBytesBudget(2 * max(reserved) + max(reserved) / 2));
    DecodedBytesBudget budget = stalled.budget();
    PullOutcomeProbe stalledPull = stalled.probe();

    PullFixture other = new PullFixture(hugeInserts(EVENTS)).budget(budget);
    other.mirror.decodeWorkers(2).chunkSize(1);
    RecordingSink otherSink = new RecordingSink();
    PullOutcomeProbe otherPull = PullOutcomeProbe.start(other, otherSink);
    // The other pull's first chunk waits behind the stalled pull's bytes.
    PipelineThreads.awaitReadersWaitingForBudget(2);
    stalledPull.cancel();

    assertInstanceOf(InterruptedException.class, stalledPull.thrown());
    assertEquals(EVENTS, otherPull.result().recordsDelivered());
    other.assertDeliveredInOrder(otherSink.committed(), 0, EVENTS);
    assertTrue(budget.highWaterMark() <= budget.maxBytes(), budget.highWaterMark() + " > " + budget.maxBytes());
    assertEquals(0, budget.heldBytes());
  }

  @Test
  void runningOutOfHeapWhileDecodingFailsThePullWithThatError() throws Exception {
    // Not a transient failure to retry for ever: the activity's classifier must see it.
    OutOfMemoryError heapSpace = new OutOfMemoryError("Java heap space");
    DocumentRenderer exhausting = document -> {
      if (document.getInt32("n").getValue() == 3) {
        throw heapSpace;
      }
      return renderer.render(document);
    };
    PullFixture fixture = new PullFixture(events).renderer(exhausting);
    fixture.mirror.decodeWorkers(2).chunkSize(1);
    RecordingSink sink = new RecordingSink();

    PullRecordsException failure = PullFixture.pullFailure(fixture, sink);

    assertEquals(heapSpace, failure.getCause());
    // A commit for visibility may have made the records before the failing one durable, never it
    // or any after it: what was committed is a gap-free prefix of the stream.
    List<ChangeRecord> committed = sink.committed();
    assertTrue(committed.size() <= 3, () -> committed.size() + " records committed");
    fixture.assertDeliveredInOrder(committed, 0, committed.size());
  }

  /** A pull on {@code budget} whose first sink write is held, once its reader waits for the budget. */
  private record Stalled(DecodedBytesBudget budget, RecordingSink sink, Gate firstWrite, PullOutcomeProbe probe) {}

  private static Stalled stallFirstWrite(PullFixture fixture, DecodedBytesBudget budget) throws Exception {
    fixture.budget(budget);
    RecordingSink sink = new RecordingSink();
    Gate firstWrite = sink.blockWrite(0);
    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink);
    assertTrue(firstWrite.awaitReached(WAIT));
    PipelineThreads.awaitReadersWaitingForBudget(1);
    return new Stalled(budget, sink, firstWrite, probe);
  }

  /** Two workers, one event per chunk, and room for 16 chunks in flight: the budget is the bound. */
  private PullFixture stalledPipeline() {
    PullFixture fixture = new PullFixture(events).renderer(renderer);
    fixture.mirror.decodeWorkers(2).chunkSize(1);
    fixture.settings.maxInFlightChunks(16);
    return fixture;
  }

  /** What each event of the fixture's stream holds once decoded, as the budget counts it. */
  private long[] decodedSizes(PullFixture fixture) {
    ChangeEventDecoder decoder = new ChangeEventDecoder(new DriverJsonRenderer(), new DriverJsonKeyRenderer(),
        DestinationTableResolver.sourceName(), ns -> false, ColumnProjections.NONE);
    long[] sizes = new long[events.size()];
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = ChunkDecoder.heapBytesOf(decoder.decode(events.get(i), fixture.stream.tokenOf(i)));
    }
    // The point of the test: decoded is several times raw.
    assertTrue(sizes[0] > 6L * events.get(0).getByteBuffer().remaining(), "decoded " + sizes[0]);
    return sizes;
  }

  /** What the reader reserves for each event's chunk (one event each) before it is decoded. */
  private long[] reservations(PullFixture fixture) {
    long[] reserved = new long[events.size()];
    for (int i = 0; i < reserved.length; i++) {
      io.mongocdc.source.ResumeToken token = fixture.stream.tokenOf(i);
      reserved[i] = ChunkDecoder.mostHeapBytesOf(new RawChunk(i, List.of(events.get(i)), List.of(token), token));
    }
    return reserved;
  }

  /** How many chunks, in order, take their bytes before the next one's reservation no longer fits. */
  private static int chunksThatFit(long maxBytes, long[] sizes, long[] reserved) {
    long held = 0;
    int admitted = 0;
    while (admitted < sizes.length && held + reserved[admitted] <= maxBytes) {
      held += sizes[admitted];
      admitted++;
    }
    return admitted;
  }

  private static long sum(long[] values, int count) {
    return Arrays.stream(values, 0, count).sum();
  }

  /** The records the fixture's events decode to. */
  private List<ChangeRecord> decodedRecords(PullFixture fixture) {
    ChangeEventDecoder decoder = new ChangeEventDecoder(new DriverJsonRenderer(), new DriverJsonKeyRenderer(),
        DestinationTableResolver.sourceName(), ns -> false, ColumnProjections.NONE);
    List<ChangeRecord> records = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      records.add((ChangeRecord) decoder.decode(events.get(i), fixture.stream.tokenOf(i)));
    }
    return records;
  }

  private static List<RawBsonDocument> hugeInserts(int count) {
    ChangeEvents changeEvents = new ChangeEvents();
    String controlCharacters = "\u0001".repeat(CONTROL_CHARACTERS);
    List<RawBsonDocument> out = new ArrayList<>(count);
    for (int n = 0; n < count; n++) {
      out.add(changeEvents.insert(Workload.ORDERS,
          Workload.document(n, n).append("blob", new BsonString(controlCharacters))));
    }
    return out;
  }

  private static long max(long[] values) {
    return Arrays.stream(values).max().orElseThrow();
  }

  private static long min(long[] values) {
    return Arrays.stream(values).min().orElseThrow();
  }
}
