package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.Namespace;
import io.mongocdc.source.scripted.ChangeEvents;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The first batches after a snapshot copy stream from where the copy started and apply again
 * every change made while it copied. The copy made those changes visible already: counted at
 * their source commit times they read as minutes of lag (issue 47, finding 11: p99 741 s after a
 * resync). They are written all the same, and left out of the freshness figures and listener.
 */
@ExtendWith(PipelineCleanup.class)
@Timeout(60)
class CopyReplayFreshnessTest {

  /** Freshness is taken against the wall clock: the events' source times are set against it. */
  private final long now = System.currentTimeMillis();
  private final AtomicLong sourceClock = new AtomicLong();
  private final ChangeEvents events = new ChangeEvents((InstantSource) () -> Instant.ofEpochMilli(sourceClock.get()));
  private final List<RawBsonDocument> script = new ArrayList<>();
  private final List<Long> told = new CopyOnWriteArrayList<>();

  /** {@code count} inserts into {@code ns} committed at the source {@code ago} before now. */
  private void inserts(Namespace ns, int count, Duration ago) {
    sourceClock.set(now - ago.toMillis());
    for (int i = 0; i < count; i++) {
      int n = script.size();
      script.add(events.insert(ns, Workload.document(n, n)));
    }
  }

  private PullResult pull(CopyReplays replays, RecordingSink sink) throws InterruptedException {
    PullFixture fixture = new PullFixture(script);
    FreshnessListener listener = (committedAt, times, count) -> {
      for (int i = 0; i < count; i++) {
        told.add(times[i]);
      }
    };
    return fixture.pullRecords().withCopyReplays(replays).withFreshnessListener(listener)
        .pull(PullFixture.START, sink, ProgressListener.none());
  }

  private static Instant ago(Duration duration, long now) {
    return Instant.ofEpochMilli(now - duration.toMillis());
  }

  @Test
  void changesACopyMadeVisibleAreReplayedButNotCountedAsLag() throws Exception {
    // The copy ran from ten minutes ago until a minute ago; the batch replays its changes, then streams.
    inserts(Workload.ORDERS, 40, Duration.ofMinutes(10));
    inserts(Workload.ORDERS, 40, Duration.ofMinutes(5));
    inserts(Workload.ORDERS, 5, Duration.ZERO);
    RecordingSink sink = new RecordingSink();

    PullResult result = pull(CopyReplays.of(Map.of(Workload.ORDERS, ago(Duration.ofMinutes(1), now))), sink);

    assertEquals(85, result.recordsDelivered(), "every replay is written all the same");
    assertEquals(85, sink.committed().size());
    Freshness freshness = result.freshness();
    assertNotNull(freshness);
    assertEquals(5, freshness.records(), "only the changes made after the copy are measured");
    assertTrue(freshness.p99Millis() < 60_000, "replays read as no lag: p99 " + freshness.p99Millis() + " ms");
    assertTrue(freshness.maxMillis() < 60_000, "max " + freshness.maxMillis() + " ms");
    assertEquals(Instant.ofEpochMilli(now), freshness.visibleThrough());
    assertEquals(List.of(now, now, now, now, now), told, "the listener is told only the records measured");
  }

  @Test
  void eachCollectionIsMeasuredFromTheEndOfItsOwnCopy() throws Exception {
    Namespace orders = Workload.ORDERS;
    Namespace users = Workload.USERS;
    // users' copy ended 5 minutes ago, orders' 1 minute ago; a collection no copy covers always counts.
    Namespace items = new Namespace("shop", "items");
    inserts(users, 3, Duration.ofMinutes(8));
    inserts(orders, 4, Duration.ofMinutes(3));
    inserts(users, 2, Duration.ofMinutes(3));
    inserts(items, 1, Duration.ofMinutes(3));

    PullResult result = pull(CopyReplays.of(Map.of(
        orders, ago(Duration.ofMinutes(1), now), users, ago(Duration.ofMinutes(5), now))), new RecordingSink());

    assertEquals(10, result.recordsDelivered());
    assertEquals(3, result.freshness().records(),
        "users' changes after its copy waited for the batches (lag), as did the uncopied collection's");
    assertTrue(result.freshness().p50Millis() >= Duration.ofMinutes(3).toMillis() - 1_000);
    assertEquals(3, told.size());
  }

  @Test
  void aBatchOfReplaysOnlyMeasuresNothing() throws Exception {
    inserts(Workload.ORDERS, 20, Duration.ofMinutes(10));

    PullResult result = pull(CopyReplays.of(Map.of(Workload.ORDERS, ago(Duration.ofMinutes(1), now))),
        new RecordingSink());

    assertEquals(20, result.recordsDelivered());
    assertNull(result.freshness(), "no record measured, as for a batch that committed none");
    assertEquals(List.of(), told);
  }

  @Test
  void streamingAfterACopyIsMeasuredAsBefore() throws Exception {
    // A mirror behind (paused, say) long after its copy: that lag is real and every record counts.
    inserts(Workload.ORDERS, 30, Duration.ofMinutes(10));
    inserts(Workload.ORDERS, 10, Duration.ZERO);
    CopyReplays longAgo = CopyReplays.of(Map.of(Workload.ORDERS, ago(Duration.ofHours(1), now)));

    PullResult afterCopy = pull(longAgo, new RecordingSink());
    List<Long> toldAfterCopy = List.copyOf(told);
    told.clear();
    PullResult noCopy = pull(CopyReplays.NONE, new RecordingSink());

    assertEquals(40, afterCopy.freshness().records());
    assertEquals(noCopy.freshness().records(), afterCopy.freshness().records());
    assertEquals(noCopy.freshness().visibleThrough(), afterCopy.freshness().visibleThrough());
    assertTrue(afterCopy.freshness().p50Millis() >= Duration.ofMinutes(10).toMillis() - 1_000,
        "p50 " + afterCopy.freshness().p50Millis());
    assertEquals(told, toldAfterCopy, "the listener is told the same records");
  }
}
