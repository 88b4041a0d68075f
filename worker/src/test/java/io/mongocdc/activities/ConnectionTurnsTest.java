package io.mongocdc.activities;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.metrics.MirrorMetrics;
import io.mongocdc.metrics.PipelineMetrics;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.ports.ConnectionLease;
import io.mongocdc.ports.ConnectionWaitLog;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.ports.MirrorTable;
import io.mongocdc.workflows.model.MirrorConfig;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A batch's turn for its destination connections: taken at once when free; else waited for while
 * heartbeating and shown as waiting; and a wait the server cancels (its heartbeat refused) ends
 * with that refusal, holding nothing, with no thread left behind.
 */
class ConnectionTurnsTest {

  private static final MirrorConfig MIRROR = Fixtures.orders();

  /** A destination whose whole budget is {@code permits} connections; nothing else is used. */
  private static final class BudgetOnly implements MirrorDestination {
    final Semaphore free;

    BudgetOnly(int permits) {
      free = new Semaphore(permits, true);
    }

    /** Calls of {@link #tryReserveConnections}. */
    final java.util.concurrent.atomic.AtomicInteger looks = new java.util.concurrent.atomic.AtomicInteger();

    @Override
    public Optional<ConnectionLease> tryReserveConnections(MirrorConfig mirror, int connections) {
      looks.incrementAndGet();
      try {
        // As the real budget: the timed form keeps the queue's order.
        return free.tryAcquire(connections, 0, TimeUnit.NANOSECONDS) ? Optional.of(lease(connections)) : Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }

    @Override
    public ConnectionLease awaitConnections(MirrorConfig mirror, int connections) throws InterruptedException {
      free.acquire(connections);
      return lease(connections);
    }

    /** Others wait when a thread queues for the budget's connections. */
    private ConnectionLease lease(int connections) {
      return new ConnectionLease() {
        @Override
        public void close() {
          free.release(connections);
        }

        @Override
        public boolean othersWait() {
          return free.hasQueuedThreads();
        }
      };
    }

    @Override
    public void validate(MirrorConfig mirror) {}

    @Override
    public List<String> createTables(MirrorConfig mirror) {
      throw new UnsupportedOperationException();
    }

    @Override
    public DestinationTableResolver tableResolver(MirrorConfig mirror) {
      throw new UnsupportedOperationException();
    }

    @Override
    public RecordSink openSink(MirrorConfig mirror, long batchId) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<MirrorTable> plannedTables(MirrorConfig mirror) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void checkReachable(String destinationPeer) {}

    @Override
    public void dropTables(List<MirrorTable> tables) {}
  }

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private final MirrorMetrics metrics = new PipelineMetrics(meters, Clock.systemUTC(), null).mirror(MIRROR.name());
  private final List<Instant> waitLog = new CopyOnWriteArrayList<>();
  private final ConnectionWaitLog waits = (mirror, since) -> waitLog.add(since == null ? Instant.EPOCH : since);

  @Test
  void freeConnectionsAreTakenAtOnceWithoutAWait() throws Exception {
    BudgetOnly destination = new BudgetOnly(3);
    List<Object> beats = new CopyOnWriteArrayList<>();
    ConnectionLease lease = new ConnectionTurns(destination, waits).take(beats::add, MIRROR, 2, since -> "waiting",
        metrics, "batch 1");
    assertEquals(0, destination.free.availablePermits(), "two lanes and one beside them");
    assertTrue(beats.isEmpty());
    assertTrue(waitLog.isEmpty());
    lease.close();
    assertEquals(3, destination.free.availablePermits());
  }

  @Test
  void aWaitingBatchHeartbeatsIsShownWaitingAndGetsItsConnectionsWhenFreed() throws Exception {
    BudgetOnly destination = new BudgetOnly(3);
    ConnectionLease held = destination.tryReserveConnections(MIRROR, 3).orElseThrow();
    List<Object> beats = new CopyOnWriteArrayList<>();
    CountDownLatch beating = new CountDownLatch(1);
    CompletableFuture<ConnectionLease> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        return new ConnectionTurns(destination, waits).take(details -> {
          beats.add(details);
          beating.countDown();
        }, MIRROR, 2, since -> "waiting since " + since.toEpochMilli(), metrics, "batch 1");
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    assertTrue(beating.await(10, TimeUnit.SECONDS), "the waiting batch heartbeats at once");
    assertEquals(1, waitLog.size());
    assertEquals("waiting since " + waitLog.get(0).toEpochMilli(), beats.get(0));
    assertEquals(1.0, meters.get("mongo_cdc_waiting_for_destination_connections").gauge().value());
    assertFalse(waiting.isDone());

    held.close();
    ConnectionLease lease = waiting.get(10, TimeUnit.SECONDS);
    assertEquals(Instant.EPOCH, waitLog.get(1), "the wait is cleared");
    assertEquals(0.0, meters.get("mongo_cdc_waiting_for_destination_connections").gauge().value());
    assertEquals(1, meters.get("mongo_cdc_destination_connection_waits").timer().count());
    lease.close();
    assertEquals(3, destination.free.availablePermits());
    assertNoWaitThreadLeft();
  }

  /**
   * Issue 48: a snapshot partition copied beside its mirror's batches looks for free connections
   * instead of queueing for them, so the batch holding them is not told that others wait (which
   * made it hand them over every few hundred milliseconds); it gets them once they are free.
   */
  @Test
  void aPartitionWaitingBehindTheBatchesDoesNotQueueAndGetsItsConnectionsWhenFreed() throws Exception {
    BudgetOnly destination = new BudgetOnly(3);
    ConnectionLease batch = destination.tryReserveConnections(MIRROR, 3).orElseThrow();
    CompletableFuture<ConnectionLease> partition = CompletableFuture.supplyAsync(() -> {
      try {
        return new ConnectionTurns(destination, waits).takeBehindBatches(details -> {}, MIRROR, 1,
            since -> "waiting", metrics, "snapshot partition 0 of orders");
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (destination.looks.get() < 4 && !partition.isDone() && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertTrue(destination.looks.get() >= 4, "it looks again and again: " + destination.looks.get());
    assertFalse(destination.free.hasQueuedThreads(), "it does not queue, so the batch is not told others wait");
    assertFalse(partition.isDone());

    batch.close();
    ConnectionLease lease = partition.get(10, TimeUnit.SECONDS);
    assertEquals(1, destination.free.availablePermits(), "one sink and one beside it");
    lease.close();
    assertNoWaitThreadLeft();
  }

  /**
   * Issue 48: a copy hands its connections over between two transactions when a batch queues for
   * them, and takes them again behind it; before, the batch waited for the whole partition (6-13 s
   * with 62 500-document partitions).
   */
  @Test
  void aCopyHandsItsConnectionsToAQueuedBatchAndTakesThemAgainBehindIt() throws Exception {
    BudgetOnly destination = new BudgetOnly(3);
    ConnectionTurns turns = new ConnectionTurns(destination, waits);
    // Threads of its own: the common pool may have one thread on a small machine, which the batch's wait holds.
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (ConnectionTurns.CopyConnections copy = turns.takeForCopy(details -> {}, MIRROR, 1, since -> "waiting",
        metrics, "snapshot partition 0 of orders")) {
      assertFalse(copy.wanted(), "nobody waits");
      CompletableFuture<ConnectionLease> batch = CompletableFuture.supplyAsync(() -> {
        try {
          return turns.take(details -> {}, MIRROR, 2, since -> "waiting", metrics, "batch 1");
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }, threads);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!copy.wanted() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertTrue(copy.wanted(), "the batch queued for the copy's connections");
      CompletableFuture<Void> gaveWay = CompletableFuture.runAsync(() -> {
        try {
          copy.giveWay();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }, threads);
      ConnectionLease batchLease = batch.get(10, TimeUnit.SECONDS);
      assertFalse(gaveWay.isDone(), "the copy waits while the batch holds the connections");
      batchLease.close();
      gaveWay.get(10, TimeUnit.SECONDS);
      assertEquals(1, destination.free.availablePermits(), "the copy holds its two again");
    } finally {
      threads.shutdown();
    }
    assertTrue(threads.awaitTermination(10, TimeUnit.SECONDS));
    assertEquals(3, destination.free.availablePermits(), "closed, the copy gave them back");
    assertNoWaitThreadLeft();
  }

  @Test
  void aWaitTheServerCancelsEndsWithTheRefusalAndHoldsNothing() throws Exception {
    BudgetOnly destination = new BudgetOnly(3);
    ConnectionLease held = destination.tryReserveConnections(MIRROR, 3).orElseThrow();
    RuntimeException cancelled = new IllegalStateException("activity cancelled (scripted)");
    CountDownLatch firstBeat = new CountDownLatch(1);
    CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
    CompletableFuture<ConnectionLease> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        return new ConnectionTurns(destination, waits).take(details -> {
          if (firstBeat.getCount() == 0) {
            throw cancelled; // the timer's beat, while the batch waits
          }
          firstBeat.countDown();
        }, MIRROR, 2, since -> "waiting", metrics, "batch 1");
      } catch (InterruptedException e) {
        throw new IllegalStateException("the cancellation came out as an interruption", e);
      } finally {
        interruptedAfter.complete(Thread.currentThread().isInterrupted());
      }
    });
    assertTrue(firstBeat.await(10, TimeUnit.SECONDS));
    Throwable failure = assertThrows(java.util.concurrent.ExecutionException.class,
        () -> waiting.get(30, TimeUnit.SECONDS)).getCause();
    assertSame(cancelled, failure);
    assertFalse(interruptedAfter.get(), "the thread is not left interrupted");
    assertEquals(0, destination.free.availablePermits(), "the test still holds all");
    held.close();
    assertEquals(3, destination.free.availablePermits(), "the cancelled wait took nothing");
    assertEquals(Instant.EPOCH, waitLog.get(waitLog.size() - 1), "the wait is cleared");
    assertNoWaitThreadLeft();
  }

  private static void assertNoWaitThreadLeft() throws TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().endsWith("-connection-wait"))) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("a connection-wait heartbeat thread was left behind");
      }
      Thread.onSpinWait();
    }
  }
}
