package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.ConnectionLease;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Batches take their connections whole, in the order they asked: a batch that needs many is not
 * overtaken by later ones that need few (which would starve it), nobody holds a partial set, and a
 * wait that ends early gives nothing away.
 */
class ConnectionBudgetTest {

  private final ExecutorService threads = Executors.newCachedThreadPool();

  @AfterEach
  void noThreadLeftBehind() throws InterruptedException {
    threads.shutdownNow();
    assertTrue(threads.awaitTermination(10, TimeUnit.SECONDS), "a waiting thread was left behind");
  }

  @Test
  void aLaterSmallRequestDoesNotOvertakeAnEarlierLargeOne() throws Exception {
    ConnectionBudget budget = new ConnectionBudget(3);
    ConnectionLease one = budget.tryAcquire(1).orElseThrow();
    ConnectionLease two = budget.tryAcquire(2).orElseThrow();
    Future<ConnectionLease> large = threads.submit(() -> budget.acquire(2));
    awaitQueued(budget, 1);

    one.close();
    assertEquals(1, budget.available());
    assertTrue(budget.tryAcquire(1).isEmpty(), "a free connection went past the batch that waited first");
    Future<ConnectionLease> small = threads.submit(() -> budget.acquire(1));
    awaitQueued(budget, 2);
    assertFalse(small.isDone(), "the later small request waits behind the large one");

    two.close();
    ConnectionLease largeLease = large.get(10, TimeUnit.SECONDS);
    ConnectionLease smallLease = small.get(10, TimeUnit.SECONDS);
    assertEquals(0, budget.available());
    largeLease.close();
    smallLease.close();
    assertEquals(3, budget.available());
  }

  @Test
  void waitersAreServedInTheOrderTheyAsked() throws Exception {
    ConnectionBudget budget = new ConnectionBudget(2);
    ConnectionLease all = budget.tryAcquire(2).orElseThrow();
    List<Future<ConnectionLease>> waiting = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      waiting.add(threads.submit(() -> budget.acquire(2)));
      awaitQueued(budget, i + 1);
    }
    // Each lease holds every connection, so a waiter served out of turn keeps the next one waiting.
    ConnectionLease held = all;
    for (Future<ConnectionLease> next : waiting) {
      held.close();
      held = next.get(10, TimeUnit.SECONDS);
    }
    held.close();
    assertEquals(2, budget.available());
  }

  @Test
  void anInterruptedWaitLeavesTheQueueAndTakesNothing() throws Exception {
    ConnectionBudget budget = new ConnectionBudget(2);
    ConnectionLease all = budget.tryAcquire(2).orElseThrow();
    CompletableFuture<Thread> waiter = new CompletableFuture<>();
    Future<ConnectionLease> interrupted = threads.submit(() -> {
      waiter.complete(Thread.currentThread());
      return budget.acquire(2);
    });
    awaitQueued(budget, 1);
    waiter.get().interrupt();
    ExecutionException failed = assertThrows(ExecutionException.class, () -> interrupted.get(10, TimeUnit.SECONDS));
    assertTrue(failed.getCause() instanceof InterruptedException, String.valueOf(failed.getCause()));
    awaitQueued(budget, 0);

    all.close();
    all.close(); // a second close gives nothing back twice
    assertEquals(2, budget.available());
    budget.tryAcquire(2).orElseThrow().close();
  }

  @Test
  void aRequestTheBudgetCannotEverServeIsRefused() {
    ConnectionBudget budget = new ConnectionBudget(3);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> budget.acquire(4));
    assertEquals("a lease of 4 connections cannot come from a budget of 3", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> budget.tryAcquire(0));
    assertThrows(IllegalArgumentException.class, () -> new ConnectionBudget(0));
  }

  /** Waits until {@code count} threads wait in the budget's queue (a state, not a time). */
  private static void awaitQueued(ConnectionBudget budget, int count) throws TimeoutException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (budget.waiting() != count) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("expected " + count + " waiting, found " + budget.waiting());
      }
      Thread.onSpinWait();
    }
  }
}
