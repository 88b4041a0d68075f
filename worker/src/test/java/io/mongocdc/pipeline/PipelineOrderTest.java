package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Operation;
import io.mongocdc.source.StreamPosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Invariant 1: records reach the sink in exactly source order, whatever N, K and decode timing. */
@ExtendWith(PipelineCleanup.class)
class PipelineOrderTest {

  private static final int EVENTS = 600;


  static Stream<Arguments> workersChunksSeeds() {
    List<Arguments> cases = new ArrayList<>();
    for (int workers : new int[] {1, 2, 8, 64}) {
      for (int chunk : new int[] {1, 7, 256}) {
        for (long seed : new long[] {1, 2, 3}) {
          cases.add(Arguments.of(workers, chunk, seed * 7919 + workers * 31L + chunk));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "N={0} K={1} seed={2}")
  @MethodSource("workersChunksSeeds")
  void sinkReceivesExactlySourceOrder(int workers, int chunkSize, long seed) throws Exception {
    List<RawBsonDocument> events = Workload.mixed(seed, EVENTS);
    PullFixture fixture = new PullFixture(events).renderer(new ScriptedRenderer(seed, 40));
    fixture.mirror.decodeWorkers(workers).chunkSize(chunkSize);
    fixture.settings.maxInFlightChunks(Math.max(2, workers / 2));
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    fixture.assertDeliveredInOrder(sink.committed(), 0, EVENTS);
    assertEquals(sink.written(), sink.committed(), "every written record committed exactly once");
    assertEquals(StreamPosition.after(fixture.stream.tokenOf(EVENTS - 1)), result.checkpoint());
    assertEquals(EVENTS, result.eventsRead());
    assertEquals(EVENTS, result.recordsDelivered());
    assertEquals(countByTable(sink.committed()), result.recordsByTable());
    assertEquals(EndReason.IDLE_TIMEOUT, result.endReason());
    assertEquals(0, fixture.stream.openCursorCount(), "cursor closed");
  }

  @Test
  void batchSizeCutsTheBatchAndTheNextPullContinuesWithoutGapOrDuplicate() throws Exception {
    List<RawBsonDocument> events = Workload.mixed(42, 1000);
    PullFixture fixture = new PullFixture(events);
    fixture.mirror.batchSize(300).chunkSize(7);
    PullRecords pullRecords = fixture.pullRecords();
    List<ChangeRecord> all = new ArrayList<>();
    StreamPosition checkpoint = PullFixture.START;
    List<EndReason> reasons = new ArrayList<>();
    for (int batch = 0; batch < 4; batch++) {
      RecordingSink sink = new RecordingSink();
      PullResult result = pullRecords.pull(checkpoint, sink, ProgressListener.none());
      all.addAll(sink.committed());
      checkpoint = result.checkpoint();
      reasons.add(result.endReason());
    }
    fixture.assertDeliveredInOrder(all, 0, 1000);
    assertEquals(List.of(EndReason.BATCH_SIZE, EndReason.BATCH_SIZE, EndReason.BATCH_SIZE, EndReason.IDLE_TIMEOUT),
        reasons);
  }

  private static Map<String, Map<Operation, Long>> countByTable(List<ChangeRecord> records) {
    Map<String, Map<Operation, Long>> counts = new java.util.LinkedHashMap<>();
    for (ChangeRecord record : records) {
      counts.computeIfAbsent(record.table(), t -> new java.util.EnumMap<>(Operation.class))
          .merge(record.operation(), 1L, Long::sum);
    }
    Map<String, Map<Operation, Long>> copy = new java.util.LinkedHashMap<>();
    counts.forEach((t, ops) -> copy.put(t, Map.copyOf(ops)));
    return copy;
  }
}
