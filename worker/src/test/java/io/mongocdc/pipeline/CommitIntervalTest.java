package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Operation;
import io.mongocdc.source.StreamPosition;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Timeout;

/** A batch commits every so many records and every so many source bytes, and at its end. */
@ExtendWith(PipelineCleanup.class)
@Timeout(30)
class CommitIntervalTest {


  @Test
  void aBatchCommitsOnceItsRecordsSinceTheLastCommitHoldTheByteInterval() throws Exception {
    List<RawBsonDocument> events = Workload.inserts(100);
    int largest = events.stream().mapToInt(e -> e.getByteBuffer().remaining()).max().orElseThrow();
    PullFixture fixture = new PullFixture(events);
    // Chunks of 10 events of about the same size: every chunk crosses a bound of 9 events' bytes.
    fixture.mirror.chunkSize(10).decodeWorkers(2);
    fixture.settings.commitIntervalBytes(9L * largest);
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    assertEquals(100, result.recordsDelivered());
    assertTrue(sink.commits() >= 10, "a commit after every chunk, then the batch's own: " + sink.commits());
  }

  @Test
  void theDeliveredTallyCountsEachCommittedRecordAndItsBytesOnceOverManyCommits() throws Exception {
    PullFixture fixture = new PullFixture(Workload.mixed(7, 300));
    fixture.mirror.chunkSize(10).decodeWorkers(2);
    fixture.settings.commitIntervalRecords(25).progressInterval(java.time.Duration.ofMillis(1));
    RecordingSink sink = new RecordingSink();
    List<PullProgress> progress = new CopyOnWriteArrayList<>();

    PullResult result = fixture.pullRecords().pull(PullFixture.START, List.of(sink), progress::add);

    assertTrue(sink.commits() >= 10, "many commits: " + sink.commits());
    Map<String, Map<Operation, Long>> records = new TreeMap<>();
    Map<String, Map<Operation, Long>> bytes = new TreeMap<>();
    for (ChangeRecord record : sink.committed()) {
      records.computeIfAbsent(record.table(), t -> new TreeMap<>()).merge(record.operation(), 1L, Long::sum);
      bytes.computeIfAbsent(record.table(), t -> new TreeMap<>())
          .merge(record.operation(), (long) record.sourceBytes(), Long::sum);
    }
    assertEquals(records, new TreeMap<>(result.recordsByTable()));
    result.tables().forEach((table, tally) -> {
      assertEquals(bytes.get(table), new TreeMap<>(tally.bytes()), "bytes of " + table);
      assertEquals(sink.committed().stream().filter(r -> r.table().equals(table)).findFirst().orElseThrow()
          .source().fullName(), tally.sourceNamespace());
    });
    assertEquals(sink.committed().get(0).position(), result.firstPosition());
    for (PullProgress p : progress) {
      long tallied = p.deliveredByTable().values().stream()
          .flatMap(t -> t.records().values().stream()).mapToLong(Long::longValue).sum();
      long upToCheckpoint = p.deliveredCheckpoint() instanceof StreamPosition.AfterToken after
          ? sink.committed().stream().filter(r -> r.position().compareTo(after.token()) <= 0).count() : 0;
      assertEquals(upToCheckpoint, tallied, "a progress report counts exactly the records up to its checkpoint");
    }
  }

  @Test
  void withoutIntervalsABatchCommitsOnceAtItsEnd() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(100));
    fixture.mirror.chunkSize(10).decodeWorkers(2);
    RecordingSink sink = new RecordingSink();

    fixture.pull(sink);

    assertEquals(1, sink.commits());
  }
}
