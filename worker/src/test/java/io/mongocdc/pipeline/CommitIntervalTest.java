package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A batch commits every so many records and every so many source bytes, and at its end. */
@Timeout(30)
class CommitIntervalTest {

  @AfterEach
  void noThreadLeft() {
    PipelineThreads.assertNoneAlive();
  }

  @Test
  void aBatchCommitsOnceItsRecordsSinceTheLastCommitHoldTheByteInterval() throws Exception {
    List<RawBsonDocument> events = Workload.inserts(100);
    int largest = events.stream().mapToInt(e -> e.getByteBuffer().remaining()).max().orElseThrow();
    PullFixture fixture = new PullFixture(events);
    // Chunks of 10 events of about the same size: every chunk crosses a bound of 9 events' bytes.
    fixture.settings.chunkSize(10).decodeWorkers(2).commitIntervalBytes(9L * largest);
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    assertEquals(100, result.recordsDelivered());
    assertTrue(sink.commits() >= 10, "a commit after every chunk, then the batch's own: " + sink.commits());
  }

  @Test
  void withoutIntervalsABatchCommitsOnceAtItsEnd() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(100));
    fixture.settings.chunkSize(10).decodeWorkers(2);
    RecordingSink sink = new RecordingSink();

    fixture.pull(sink);

    assertEquals(1, sink.commits());
  }
}
