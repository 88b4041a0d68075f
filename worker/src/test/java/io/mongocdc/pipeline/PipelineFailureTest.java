package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeEventDecodeException;
import io.mongocdc.decode.DocumentRenderException;
import io.mongocdc.source.ChangeStreamException;
import io.mongocdc.source.scripted.Gate;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Timeout;

/**
 * Invariants 2 and 3: any failure fails the whole pull with the first error, promptly, and the
 * checkpoint never covers a record the sink did not commit.
 */
@ExtendWith(PipelineCleanup.class)
@Timeout(30)
class PipelineFailureTest {

  private static final Duration WAIT = Duration.ofSeconds(20);


  @Test
  void decodeErrorInTheMiddleOfABatchFailsTheBatchNamingTheEvent() {
    List<RawBsonDocument> events = Workload.inserts(200);
    ScriptedRenderer renderer = new ScriptedRenderer();
    renderer.failAt(57, new DocumentRenderException("unsupported value"));
    PullFixture fixture = new PullFixture(events).renderer(renderer);
    RecordingSink sink = new RecordingSink();

    PullRecordsException error = PullFixture.pullFailure(fixture, sink);

    ChangeEventDecodeException cause = assertInstanceOf(ChangeEventDecodeException.class, error.getCause());
    assertEquals(fixture.stream.tokenOf(57), cause.position());
    assertTrue(cause.getMessage().contains(fixture.stream.tokenOf(57).data()), cause.getMessage());
    assertTrue(cause.getMessage().contains("unsupported value"), cause.getMessage());
    assertEquals(0, sink.commits(), "nothing committed");
    assertSame(cause, sink.abortCause(), "the sink was told to discard the batch");
    assertEquals(PullFixture.START, error.deliveredCheckpoint());
    assertEquals(0, fixture.stream.openCursorCount(), "cursor closed");
  }

  @Test
  void sinkWriteErrorFailsTheBatch() {
    PullFixture fixture = new PullFixture(Workload.inserts(100));
    RecordingSink sink = new RecordingSink();
    IOException diskFull = new IOException("disk full");
    sink.failWrite(2, diskFull);

    PullRecordsException error = PullFixture.pullFailure(fixture, sink);

    assertSame(diskFull, error.getCause());
    assertEquals(0, sink.commits());
    assertEquals(PullFixture.START, error.deliveredCheckpoint());
  }

  @Test
  void sinkCommitErrorFailsTheBatchAndDeliversNothing() {
    PullFixture fixture = new PullFixture(Workload.inserts(50));
    RecordingSink sink = new RecordingSink();
    IOException lostConnection = new IOException("connection lost during commit");
    sink.failCommit(lostConnection);

    PullRecordsException error = PullFixture.pullFailure(fixture, sink);

    assertSame(lostConnection, error.getCause());
    assertEquals(List.of(), sink.committed());
    assertEquals(PullFixture.START, error.deliveredCheckpoint());
  }

  @Test
  void sourceErrorFailsTheBatch() {
    PullFixture fixture = new PullFixture(Workload.inserts(100));
    ChangeStreamException reset = new ChangeStreamException("connection reset by peer", 0, true, null);
    fixture.stream.failAt(50, reset);
    RecordingSink sink = new RecordingSink();

    PullRecordsException error = PullFixture.pullFailure(fixture, sink);

    assertSame(reset, error.getCause());
    assertEquals(0, sink.commits());
    assertEquals(0, fixture.stream.openCursorCount());
  }

  @Test
  void sinkErrorThatHappensFirstIsReportedOverALaterDecodeError() throws Exception {
    ScriptedRenderer renderer = new ScriptedRenderer();
    Gate decodeOf40 = renderer.blockAt(40);
    renderer.failAt(40, new DocumentRenderException("would fail later"));
    PullFixture fixture = new PullFixture(Workload.inserts(100)).renderer(renderer);
    fixture.mirror.chunkSize(10).decodeWorkers(2);
    fixture.settings.maxInFlightChunks(6);
    RecordingSink sink = new RecordingSink();
    Gate firstWrite = sink.blockWrite(0);
    IOException sinkError = new IOException("destination rejected the batch");
    sink.failWrite(0, sinkError);

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink);
    assertTrue(firstWrite.awaitReached(WAIT));
    assertTrue(decodeOf40.awaitReached(WAIT));
    firstWrite.release(); // the sink fails now, while the decode of event 40 still waits
    PullRecordsException error = probe.failure();

    assertSame(sinkError, error.getCause());
  }

  @Test
  void decodeErrorSurfacesWhileTheSinkIsStillBlocked() throws Exception {
    ScriptedRenderer renderer = new ScriptedRenderer();
    Gate decodeOf40 = renderer.blockAt(40);
    renderer.failAt(40, new DocumentRenderException("bad document"));
    PullFixture fixture = new PullFixture(Workload.inserts(100)).renderer(renderer);
    fixture.mirror.chunkSize(10).decodeWorkers(2);
    fixture.settings.maxInFlightChunks(6);
    RecordingSink sink = new RecordingSink();
    Gate firstWrite = sink.blockWrite(0); // never released

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink);
    assertTrue(firstWrite.awaitReached(WAIT));
    assertTrue(decodeOf40.awaitReached(WAIT));
    decodeOf40.release(); // event 40 fails now, while the sink still holds the first chunk
    PullRecordsException error = probe.failure();

    ChangeEventDecodeException cause = assertInstanceOf(ChangeEventDecodeException.class, error.getCause());
    assertEquals(fixture.stream.tokenOf(40), cause.position());
    assertEquals(0, sink.commits());
  }

  @Test
  void anEventWithoutAResumeTokenFailsTheBatchNamingThePositionBeforeIt() {
    List<RawBsonDocument> events = new java.util.ArrayList<>(Workload.inserts(10));
    events.add(RawBsonDocument.parse("{operationType: 'insert', ns: {db: 'shop', coll: 'orders'}}"));
    PullFixture fixture = new PullFixture(io.mongocdc.source.scripted.ScriptedChangeStream.builder()
        .events(events.subList(0, 10)));
    // The scripted builder needs tokens, so feed the broken event through a wrapping opener.
    io.mongocdc.source.ChangeStreamOpener broken = position -> new io.mongocdc.source.ChangeStreamCursor() {
      private final java.util.Iterator<RawBsonDocument> it = events.iterator();

      @Override
      public RawBsonDocument tryNext() {
        return it.hasNext() ? it.next() : null;
      }

      @Override
      public io.mongocdc.source.ResumeToken postBatchResumeToken() {
        return null;
      }

      @Override
      public void close() {}
    };
    PullRecords pullRecords = new PullRecords("test", broken,
        new io.mongocdc.decode.ChangeEventDecoder(new io.mongocdc.decode.DriverJsonRenderer(),
            new io.mongocdc.decode.DriverJsonKeyRenderer(), io.mongocdc.decode.DestinationTableResolver.sourceName(),
            ns -> false, io.mongocdc.decode.ColumnProjections.NONE),
        fixture.mirror.build(), fixture.settings.build(), fixture.clock, DecodedBytesBudget.ofDefaultSize());
    RecordingSink sink = new RecordingSink();

    PullRecordsException error = org.junit.jupiter.api.Assertions.assertThrows(PullRecordsException.class,
        () -> pullRecords.pull(PullFixture.START, sink, ProgressListener.none()));

    assertTrue(error.getCause().getMessage().contains("after " + fixture.stream.tokenOf(9)
        + " has no usable resume token: the event has no _id"), error.getCause().getMessage());
    assertEquals(0, sink.commits());
  }
}
