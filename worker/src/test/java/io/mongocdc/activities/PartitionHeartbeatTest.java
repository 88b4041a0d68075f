package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PartitionHeartbeatTest {

  private static final String THREAD = "mongo-cdc-test-snapshot-heartbeat";

  @AfterEach
  void noThreadLeft() {
    List<String> alive = Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive).map(Thread::getName).filter(THREAD::equals).toList();
    assertEquals(List.of(), alive, "heartbeat threads left alive");
  }

  @Test
  void beatsOnATimerWhileNoProgressIsMadeWithTheLatestDetails() throws Exception {
    CountDownLatch beats = new CountDownLatch(3);
    List<Object> sent = new CopyOnWriteArrayList<>();
    try (PartitionHeartbeat heartbeat = new PartitionHeartbeat(details -> {
      sent.add(details);
      beats.countDown();
    }, "start", Duration.ofMillis(1), THREAD, () -> {})) {
      assertTrue(beats.await(30, TimeUnit.SECONDS), "the timer beats without progress");
      heartbeat.progress("100 documents");
    }
    assertEquals("start", sent.get(0));
    assertEquals("100 documents", sent.get(sent.size() - 1), "progress is sent at once");
  }

  @Test
  void aRefusedHeartbeatRunsTheFailureActionOnceAndStopsTheCopy() throws Exception {
    IllegalStateException cancelled = new IllegalStateException("activity cancelled");
    CountDownLatch closed = new CountDownLatch(1);
    List<String> onFailureRuns = new CopyOnWriteArrayList<>();
    try (PartitionHeartbeat heartbeat = new PartitionHeartbeat(details -> {
      throw cancelled;
    }, "start", Duration.ofMillis(1), THREAD, () -> {
      onFailureRuns.add("close cursor");
      closed.countDown();
    })) {
      assertTrue(closed.await(30, TimeUnit.SECONDS), "the timer's refused heartbeat closes the cursor");
      assertSame(cancelled, assertThrows(IllegalStateException.class, () -> heartbeat.progress("more")));
      assertSame(cancelled, assertThrows(IllegalStateException.class, heartbeat::throwIfFailed));
    }
    assertEquals(List.of("close cursor"), onFailureRuns);
  }
}
