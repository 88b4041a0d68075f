package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.Gate;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.Timeout;

/** Invariant 4: cancellation returns promptly and leaves no thread, cursor or staged batch behind. */
@ExtendWith(PipelineCleanup.class)
@Timeout(30)
class PipelineCancellationTest {

  private static final Duration WAIT = Duration.ofSeconds(20);


  @Test
  void progressIsReportedWhileTheSinkIsBlocked() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(500));
    fixture.settings.progressInterval(Duration.ofMillis(5));
    RecordingSink sink = new RecordingSink();
    Gate firstWrite = sink.blockWrite(0);
    CountDownLatch threeReports = new CountDownLatch(3);

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink, progress -> threeReports.countDown());
    assertTrue(firstWrite.awaitReached(WAIT));
    assertTrue(threeReports.await(20, TimeUnit.SECONDS), "progress reported while the sink blocks");
    firstWrite.release();

    assertEquals(500, probe.result().recordsDelivered());
  }

  @Test
  void progressCarriesTheDeliveredCheckpointAfterEachCommit() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(500));
    fixture.mirror.chunkSize(10);
    fixture.settings.progressInterval(Duration.ofMillis(5)).commitIntervalRecords(50);
    RecordingSink sink = new RecordingSink();
    Gate eighthWrite = sink.blockWrite(7); // records 0..69 written, 0..49 committed
    AtomicReference<PullProgress> seenWhileBlocked = new AtomicReference<>();
    CountDownLatch reportedWhileBlocked = new CountDownLatch(1);
    java.util.concurrent.atomic.AtomicBoolean blockSeen = new java.util.concurrent.atomic.AtomicBoolean();

    // Reports come one after another from one thread, each snapshot taken after the previous
    // report returned: the first report after the one that saw the gate reached is a snapshot
    // of the blocked state.
    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink, progress -> {
      if (blockSeen.get()) {
        seenWhileBlocked.compareAndSet(null, progress);
        reportedWhileBlocked.countDown();
      } else if (eighthWrite.isReached()) {
        blockSeen.set(true);
      }
    });
    assertTrue(eighthWrite.awaitReached(WAIT));
    assertTrue(reportedWhileBlocked.await(20, TimeUnit.SECONDS));
    eighthWrite.release();
    probe.result();

    PullProgress progress = seenWhileBlocked.get();
    assertEquals(StreamPosition.after(fixture.stream.tokenOf(49)), progress.deliveredCheckpoint());
    assertEquals(50, progress.recordsDelivered());
    assertEquals(70, progress.recordsStaged());
  }

  @Test
  void progressListenerThrowingCancelsThePullPromptly() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(500));
    fixture.settings.progressInterval(Duration.ofMillis(5));
    RecordingSink sink = new RecordingSink();
    sink.blockWrite(0); // never released: only the cancellation can end the pull
    CancellationException activityCancelled = new CancellationException("activity cancelled");
    AtomicInteger reports = new AtomicInteger();

    PullRecordsException error = PullOutcomeProbe.start(fixture, sink, progress -> {
      if (reports.incrementAndGet() == 3) {
        throw activityCancelled;
      }
    }).failure();

    assertSame(activityCancelled, error.getCause());
    assertSame(activityCancelled, sink.abortCause());
    assertEquals(0, sink.commits());
    assertEquals(0, fixture.stream.openCursorCount());
  }

  @Test
  void interruptingTheCallerWhileTheSourceBlocksReturnsPromptly() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(100));
    Gate sourceBlocked = fixture.stream.blockAt(30); // never released
    RecordingSink sink = new RecordingSink();

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, sink);
    assertTrue(sourceBlocked.awaitReached(WAIT));
    probe.cancel();

    assertInstanceOf(InterruptedException.class, probe.thrown());
    assertInstanceOf(CancellationException.class, sink.abortCause());
    assertEquals(0, fixture.stream.openCursorCount());
  }

  @Test
  void aThreadThatOutlivesACancelledPullIsReportedToTheCaller() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(100));
    fixture.settings.shutdownTimeout(Duration.ofMillis(200));
    UninterruptibleSink deaf = UninterruptibleSink.untilReleased();

    PullOutcomeProbe probe = PullOutcomeProbe.start(fixture, deaf);
    try {
      assertTrue(deaf.entered.await(WAIT.toSeconds(), TimeUnit.SECONDS));
      probe.cancel();

      Throwable thrown = probe.thrown();
      assertInstanceOf(InterruptedException.class, thrown);
      assertEquals(1, thrown.getSuppressed().length, Arrays.toString(thrown.getSuppressed()));
      assertTrue(thrown.getSuppressed()[0].getMessage().matches("thread mongo-cdc-test-\\d+-sender did not stop within PT0.2S"),
          thrown.getSuppressed()[0].getMessage());
    } finally {
      deaf.release();
      for (Thread thread : Thread.getAllStackTraces().keySet()) {
        if (thread.getName().startsWith("mongo-cdc-")) {
          thread.join(WAIT.toMillis());
        }
      }
    }
  }

  @Test
  void aThreadThatOutlivesAFailedPullIsReportedWithTheFailure() throws Exception {
    PullFixture fixture = new PullFixture(Workload.inserts(100));
    fixture.mirror.chunkSize(10);
    fixture.settings.shutdownTimeout(Duration.ofMillis(200));
    Gate readerAtFailure = fixture.stream.blockAt(15);
    fixture.stream.failAt(15, new IllegalStateException("the source went away"));
    UninterruptibleSink deaf = UninterruptibleSink.untilReleased().onWrite(readerAtFailure::release);

    try {
      PullRecordsException error = PullFixture.pullFailure(fixture, deaf);

      assertTrue(error.getCause().getMessage().contains("the source went away"), error.getCause().toString());
      assertEquals(1, error.getSuppressed().length, Arrays.toString(error.getSuppressed()));
      assertTrue(error.getSuppressed()[0].getMessage().matches("thread mongo-cdc-test-\\d+-sender did not stop within PT0.2S"),
          error.getSuppressed()[0].getMessage());
    } finally {
      deaf.release();
      for (Thread thread : Thread.getAllStackTraces().keySet()) {
        if (thread.getName().startsWith("mongo-cdc-")) {
          thread.join(WAIT.toMillis());
        }
      }
    }
  }
}
