package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.ConnectionLease;
import io.mongocdc.workflows.CdcActivityOptions;
import io.mongocdc.workflows.model.MirrorSettings;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/**
 * Issue 47, finding 9: under connection turns a mirror whose batches are short got about one
 * second after each minute's wait (its maximum duration, counted from the activity's start, was
 * spent waiting), while mirrors with long batches ran their whole turn. Played on a virtual clock:
 * one batch at a time, served in the order they asked (as the worker's connection budget serves
 * them), every mirror with a backlog.
 */
class TurnAfterWaitingTest {

  private static final Duration TURN = Duration.ofSeconds(10);
  private static final long MS = 1_000_000L;
  private static final long NOW_MILLIS = 1_800_000_000_000L;
  /** The workflow's commit of one batch and the start of the next, between two turns of a mirror. */
  private static final long BETWEEN_BATCHES_MS = 1_000;
  private static final RawBsonDocument BACKLOG = RawBsonDocument.parse(new BsonDocument("operationType",
      new BsonString("insert")).append("wallTime", new BsonDateTime(NOW_MILLIS - 3_600_000)).toJson());

  private record Ask(String mirror, long atMs) {}

  @Test
  void aMirrorWithShortBatchesGetsAFairShareOfTheTurnsAfterLongWaits() {
    Map<String, Integer> maxBatchSeconds = new LinkedHashMap<>();
    for (int m = 1; m <= 6; m++) {
      maxBatchSeconds.put("long" + m, 300);
    }
    maxBatchSeconds.put("short", 10);
    Map<String, Long> ranMs = play(maxBatchSeconds, 3_600_000);

    long fewestOfTheLong = ranMs.entrySet().stream().filter(e -> e.getKey().startsWith("long"))
        .mapToLong(Map.Entry::getValue).min().orElseThrow();
    assertTrue(ranMs.get("short") >= 0.9 * fewestOfTheLong,
        "the short-batch mirror ran " + ranMs.get("short") + " ms against " + fewestOfTheLong + " ms: " + ranMs);
  }

  @Test
  void aBatchThatWaitedKeepsTheRestOfItsMaximumDurationWhenThatIsLonger() {
    TurnAfterWaiting turn = new TurnAfterWaiting(Duration.ofSeconds(300), TURN, timeoutOf(300));
    assertEquals(Optional.empty(), turn.limit(Duration.ofMillis(400)), "a wait this short does not count");
    assertEquals(Optional.of(Duration.ofSeconds(245)), turn.limit(Duration.ofSeconds(55)));
  }

  @Test
  void aBatchThatWaitedStillLeavesItsTimeoutRoomForItsFinalCommit() {
    Duration timeout = timeoutOf(10);
    TurnAfterWaiting turn = new TurnAfterWaiting(Duration.ofSeconds(10), TURN, timeout);
    assertEquals(Optional.of(Duration.ofSeconds(10)), turn.limit(Duration.ofSeconds(55)), "a whole turn after a wait");
    Duration waited = timeout.minus(TurnAfterWaiting.FINAL_COMMIT_RESERVE).minusSeconds(4);
    assertEquals(Optional.of(Duration.ofSeconds(4)), turn.limit(waited), "no more than the timeout leaves");
    assertEquals(Optional.of(TurnAfterWaiting.AT_LEAST), turn.limit(timeout), "and never nothing");
    assertEquals(Optional.of(Duration.ofSeconds(1)),
        new TurnAfterWaiting(Duration.ofSeconds(10), TURN, null).limit(Duration.ofSeconds(55)),
        "an unknown timeout is taken to be the maximum duration");
  }

  private static Duration timeoutOf(int maxBatchSeconds) {
    return CdcActivityOptions.pullRecords(MirrorSettings.defaults().toBuilder()
        .maxBatchDurationSeconds(maxBatchSeconds).build()).getStartToCloseTimeout();
  }

  /**
   * Runs the mirrors' batches for {@code forMs} of virtual time and returns how long each one held
   * the connections. A batch runs until its time limit after waiting ({@link TurnAfterWaiting})
   * or until its turn is over ({@link ConnectionTurn}), whichever comes first; its mirror asks
   * again {@link #BETWEEN_BATCHES_MS} later, behind those that asked before.
   */
  private static Map<String, Long> play(Map<String, Integer> maxBatchSeconds, long forMs) {
    Map<String, Long> ran = new LinkedHashMap<>();
    Deque<Ask> queue = new ArrayDeque<>();
    List<Ask> later = new ArrayList<>();
    maxBatchSeconds.keySet().forEach(m -> {
      ran.put(m, 0L);
      queue.add(new Ask(m, 0));
    });
    long now = 0;
    while (now < forMs) {
      later.sort(Comparator.comparingLong(Ask::atMs));
      if (queue.isEmpty()) {
        now = Math.max(now, later.get(0).atMs());
      }
      final long at = now;
      later.removeIf(a -> a.atMs() <= at && queue.add(a));
      Ask next = queue.poll();
      Duration maxBatch = Duration.ofSeconds(maxBatchSeconds.get(next.mirror()));
      TurnAfterWaiting afterWaiting = new TurnAfterWaiting(maxBatch, TURN,
          timeoutOf(maxBatchSeconds.get(next.mirror())));
      long limitMs = afterWaiting.limit(Duration.ofMillis(now - next.atMs())).orElse(maxBatch).toMillis();
      ConnectionTurn turn = new ConnectionTurn(othersWaitWhile(queue, later, now), TURN, () -> NOW_MILLIS);
      long elapsed = 0;
      while (elapsed < limitMs && !turn.over(elapsed * MS, BACKLOG)) {
        elapsed += 100;
      }
      elapsed = Math.min(elapsed, limitMs);
      ran.merge(next.mirror(), elapsed, Long::sum);
      now += elapsed;
      later.add(new Ask(next.mirror(), now + BETWEEN_BATCHES_MS));
    }
    return ran;
  }

  /** A lease others wait for while anyone is queued or will ask during the turn. */
  private static ConnectionLease othersWaitWhile(Deque<Ask> queue, List<Ask> later, long now) {
    return new ConnectionLease() {
      @Override
      public void close() {}

      @Override
      public boolean othersWait() {
        return !queue.isEmpty() || !later.isEmpty();
      }
    };
  }
}
