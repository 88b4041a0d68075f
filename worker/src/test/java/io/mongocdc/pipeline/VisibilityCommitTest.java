package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ForwardingChangeStreamCursor;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.Gate;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Records become visible (the sink commits them) within the visibility delay of being read, and
 * at once when the reader has caught up with the stream, however long the batch lasts; the
 * checkpoint still moves only with what every lane committed.
 */
@ExtendWith(PipelineCleanup.class)
@Timeout(60)
class VisibilityCommitTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  /** What a busy machine may add to the delay: scheduling, decoding, the commit itself. */
  private static final Duration MARGIN = Duration.ofMillis(500);
  private static final Duration TRICKLE = Duration.ofMillis(100);

  /** {@code count} inserts, each after a pause of {@link #TRICKLE} (a scripted slow source, not a wait of the test). */
  private static PullFixture trickle(int count) {
    PullFixture fixture = new PullFixture(Workload.inserts(count));
    for (int i = 1; i < count; i++) {
      fixture.stream.delayAt(i, TRICKLE);
    }
    // Batches end by idle time only: every commit before the end is one for visibility.
    fixture.mirror.chunkSize(16).decodeWorkers(2);
    return fixture;
  }

  @Test
  void aTricklingStreamHasEachRecordVisibleAsSoonAsTheReaderCaughtUp() throws Exception {
    PullFixture fixture = trickle(20);
    fixture.stream.reportingReadiness();
    Duration delay = Duration.ofSeconds(1);
    fixture.mirror.maxVisibilityDelay((int) delay.toMillis());
    ReadTimes reads = new ReadTimes(fixture.stream, false);
    fixture.opener = reads;
    TimedSink sink = new TimedSink(reads, 20);

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink);

    assertTrue(sink.allCommitted.await(WAIT.toSeconds(), TimeUnit.SECONDS), "every record committed");
    sink.assertEachVisibleWithin(delay.plus(MARGIN));
    assertTrue(sink.commits() >= 10, "commits follow the trickle, not the chunks: " + sink.commits());
    assertEquals(20, probe.result().recordsDelivered());
  }

  @Test
  void aStreamThatNeverSeemsCaughtUpStillCommitsWithinTheVisibilityDelay() throws Exception {
    PullFixture fixture = trickle(15);
    Duration delay = Duration.ofMillis(300);
    // Chunks of one event, so nothing waits in the reader: only the sender's deadline commits.
    fixture.mirror.chunkSize(1).maxVisibilityDelay((int) delay.toMillis());
    ReadTimes reads = new ReadTimes(fixture.stream, true);
    fixture.opener = reads;
    TimedSink sink = new TimedSink(reads, 15);

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink);

    assertTrue(sink.allCommitted.await(WAIT.toSeconds(), TimeUnit.SECONDS), "every record committed");
    sink.assertEachVisibleWithin(delay.plus(MARGIN));
    assertTrue(sink.commits() >= 3, "the deadline committed during the batch: " + sink.commits());
    PullResult result = probe.result();
    assertEquals(15, result.recordsDelivered());
    assertNotNull(result.freshness(), "committed records were measured");
    assertEquals(15, result.freshness().records());
  }

  @Test
  void theCheckpointNeverCoversWhatALaneHasNotCommittedAcrossVisibilityCommits() throws Exception {
    PullFixture fixture = trickle(30);
    fixture.stream.reportingReadiness();
    fixture.mirror.maxVisibilityDelay(200);
    fixture.settings.progressInterval(Duration.ofMillis(1));
    RecordingSink first = new RecordingSink();
    RecordingSink second = new RecordingSink();
    // The second lane's fourth commit hangs while the first lane's goes through, then fails.
    Gate secondLanesFourthCommit = PipelineCleanup.opensAfterTest(second.blockCommit(3));
    IOException lost = new IOException("connection lost during commit");
    second.failCommit(3, lost);
    List<String> violations = new CopyOnWriteArrayList<>();
    List<StreamPosition> checkpoints = new CopyOnWriteArrayList<>();
    ProgressListener check = progress -> {
      // Read the checkpoint first: what the lanes committed only grows after it.
      StreamPosition checkpoint = progress.deliveredCheckpoint();
      checkpoints.add(checkpoint);
      long covered = coveredEvents(fixture, checkpoint);
      long committed = committedUpTo(first, checkpoint) + committedUpTo(second, checkpoint);
      if (committed != covered) {
        violations.add(checkpoint + " covers " + covered + " events, the lanes committed " + committed + " of them");
      }
    };

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, List.of(first, second), check);
    assertTrue(secondLanesFourthCommit.awaitReached(WAIT));
    PipelineConditions.await(() -> first.commits() == 4, "the first lane commits the same round");
    secondLanesFourthCommit.release();
    PullRecordsException error = probe.failure();

    assertSame(lost, error.getCause());
    assertEquals(List.of(), violations);
    StreamPosition checkpoint = error.deliveredCheckpoint();
    assertNotEquals(PullFixture.START, checkpoint, "earlier visibility commits moved the checkpoint");
    assertEquals(coveredEvents(fixture, checkpoint), committedUpTo(first, checkpoint) + committedUpTo(second, checkpoint),
        "the failed pull's checkpoint covers only records both lanes committed");
    ResumeToken reached = ((StreamPosition.AfterToken) checkpoint).token();
    assertTrue(PullFixture.positions(first.committed()).stream().anyMatch(t -> t.compareTo(reached) > 0),
        "the first lane did commit records past the checkpoint (replayed idempotently later)");
    assertTrue(checkpoints.stream().distinct().count() >= 3, "the checkpoint moved at several commits: " + checkpoints);
  }

  private static long coveredEvents(PullFixture fixture, StreamPosition checkpoint) {
    if (!(checkpoint instanceof StreamPosition.AfterToken after)) {
      return 0;
    }
    long covered = 0;
    for (int i = 0; i < fixture.stream.eventCount(); i++) {
      if (fixture.stream.tokenOf(i).compareTo(after.token()) <= 0) {
        covered++;
      }
    }
    return covered;
  }

  private static long committedUpTo(RecordingSink lane, StreamPosition checkpoint) {
    if (!(checkpoint instanceof StreamPosition.AfterToken after)) {
      return 0;
    }
    return lane.committed().stream().filter(r -> r.position().compareTo(after.token()) <= 0).count();
  }

  /** Remembers when the reader got each event from the cursor. */
  private static final class ReadTimes implements ChangeStreamOpener {
    private final ChangeStreamOpener delegate;
    private final boolean neverCaughtUp;
    private final Map<ResumeToken, Long> readAt = new ConcurrentHashMap<>();

    ReadTimes(ChangeStreamOpener delegate, boolean neverCaughtUp) {
      this.delegate = delegate;
      this.neverCaughtUp = neverCaughtUp;
    }

    @Override
    public ChangeStreamCursor open(StreamPosition position) {
      return new ForwardingChangeStreamCursor(delegate.open(position)) {
        @Override
        public RawBsonDocument tryNext() throws InterruptedException {
          RawBsonDocument event = super.tryNext();
          if (event != null) {
            readAt.put(ResumeToken.ofEvent(event), System.nanoTime());
          }
          return event;
        }

        @Override
        public boolean eventReady() {
          return neverCaughtUp || super.eventReady();
        }
      };
    }
  }

  /** A sink that notes how long after its read each record was committed, and counts them down. */
  private static final class TimedSink implements RecordSink {
    private final ReadTimes reads;
    private final CountDownLatch allCommitted;
    private final List<ChangeRecord> written = new ArrayList<>();
    private final Map<ResumeToken, Long> visibleAfterNanos = new ConcurrentHashMap<>();
    private volatile int commits;

    TimedSink(ReadTimes reads, int records) {
      this.reads = reads;
      this.allCommitted = new CountDownLatch(records);
    }

    @Override
    public synchronized void write(List<ChangeRecord> records) {
      written.addAll(records);
    }

    @Override
    public synchronized void commit() {
      long now = System.nanoTime();
      for (ChangeRecord record : written) {
        visibleAfterNanos.put(record.position(), now - reads.readAt.get(record.position()));
        allCommitted.countDown();
      }
      written.clear();
      commits++;
    }

    int commits() {
      return commits;
    }

    void assertEachVisibleWithin(Duration bound) {
      visibleAfterNanos.forEach((token, nanos) -> assertTrue(nanos <= bound.toNanos(),
          () -> "record " + token + " became visible " + Duration.ofNanos(nanos).toMillis() + " ms after it was read,"
              + " more than " + bound.toMillis() + " ms"));
    }
  }
}
