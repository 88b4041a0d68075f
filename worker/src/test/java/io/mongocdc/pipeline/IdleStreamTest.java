package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import java.time.Duration;
import java.util.List;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Invariant 8: an idle stream still advances its checkpoint with the post-batch resume token. */
@ExtendWith(PipelineCleanup.class)
class IdleStreamTest {


  @Test
  void anIdleStreamAdvancesTheCheckpointToThePostBatchToken() throws Exception {
    ChangeEvents events = new ChangeEvents();
    ResumeToken first = events.highWaterMark();
    ResumeToken second = events.highWaterMark();
    PullFixture fixture = new PullFixture(ScriptedChangeStream.builder().idle(first).idle(second));
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    assertEquals(StreamPosition.after(second), result.checkpoint());
    assertEquals(EndReason.IDLE_TIMEOUT, result.endReason());
    assertEquals(0, result.eventsRead());
    assertEquals(1, sink.commits(), "an idle batch still commits, so its checkpoint can be stored");
  }

  @Test
  void aPostBatchTokenAfterEventsMovesTheCheckpointPastThem() throws Exception {
    ChangeEvents events = new ChangeEvents();
    List<RawBsonDocument> inserts = List.of(
        events.insert(Workload.ORDERS, Workload.document(0, 0)),
        events.insert(Workload.ORDERS, Workload.document(1, 1)));
    ResumeToken later = events.highWaterMark();
    PullFixture fixture = new PullFixture(ScriptedChangeStream.builder().events(inserts).idle(later));
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    fixture.assertDeliveredInOrder(sink.committed(), 0, 2);
    assertEquals(StreamPosition.after(later), result.checkpoint());
  }

  @Test
  void anOlderPostBatchTokenNeverMovesTheCheckpointBack() throws Exception {
    ChangeEvents events = new ChangeEvents();
    ResumeToken older = events.highWaterMark();
    RawBsonDocument insert = events.insert(Workload.ORDERS, Workload.document(0, 0));
    PullFixture fixture = new PullFixture(ScriptedChangeStream.builder().event(insert).idle(older));
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    assertEquals(StreamPosition.after(fixture.stream.tokenOf(0)), result.checkpoint());
  }

  @Test
  void anIdleBatchWithoutAPostBatchTokenKeepsTheStartingPosition() throws Exception {
    PullFixture fixture = new PullFixture(ScriptedChangeStream.builder().idle());
    RecordingSink sink = new RecordingSink();

    assertEquals(PullFixture.START, fixture.pull(sink).checkpoint());

    StreamPosition atTime = StreamPosition.atOperationTime(new BsonTimestamp(1_700_000_000, 0));
    PullResult fromTime = fixture.pullRecords().pull(atTime, new RecordingSink(), ProgressListener.none());
    assertEquals(atTime, fromTime.checkpoint());
  }

  @Test
  void theBatchEndsAfterItsMaximumDurationEvenIfEventsKeepComing() throws Exception {
    ChangeEvents events = new ChangeEvents();
    ScriptedChangeStream.Builder script = ScriptedChangeStream.builder();
    for (int n = 0; n < 100; n++) {
      script.event(events.insert(Workload.ORDERS, Workload.document(n, n))).idle();
    }
    PullFixture fixture = new PullFixture(script);
    // Each idle poll moves the clock 1 s; the idle timeout (3 s) is never reached between events.
    fixture.mirror.maxBatchDurationSeconds(10);
    RecordingSink sink = new RecordingSink();

    PullResult result = fixture.pull(sink);

    assertEquals(EndReason.MAX_DURATION, result.endReason());
    assertEquals(10, result.eventsRead());
    fixture.assertDeliveredInOrder(sink.committed(), 0, 10);
  }

  @Test
  void aTimeLimitShorterThanTheMirrorsBatchDurationEndsTheBatchAtTheLimit() throws Exception {
    PullFixture fixture = new PullFixture(anEventEverySecond());
    fixture.mirror.maxBatchDurationSeconds(10);

    PullResult limited = fixture.pullRecords().withTimeLimit(Duration.ofSeconds(4))
        .pull(PullFixture.START, new RecordingSink(), ProgressListener.none());

    assertEquals(EndReason.MAX_DURATION, limited.endReason());
    assertEquals(4, limited.eventsRead(), "one event per second of the limit, as the clock moves");
    PullFixture longer = new PullFixture(anEventEverySecond());
    longer.mirror.maxBatchDurationSeconds(10);
    PullResult mirrors = longer.pullRecords().withTimeLimit(Duration.ofSeconds(20))
        .pull(PullFixture.START, new RecordingSink(), ProgressListener.none());
    assertEquals(10, mirrors.eventsRead(), "a limit beyond the mirror's batch duration changes nothing");
  }

  /** Each idle poll moves the fixture's clock 1 s. */
  private static ScriptedChangeStream.Builder anEventEverySecond() {
    ChangeEvents events = new ChangeEvents();
    ScriptedChangeStream.Builder script = ScriptedChangeStream.builder();
    for (int n = 0; n < 100; n++) {
      script.event(events.insert(Workload.ORDERS, Workload.document(n, n))).idle();
    }
    return script;
  }
}
