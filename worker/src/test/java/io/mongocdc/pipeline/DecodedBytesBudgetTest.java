package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The budget alone: its cap, its order, a chunk larger than all of it, and a pull's account. */
@Timeout(30)
class DecodedBytesBudgetTest {

  private static final long GIB = 1L << 30;

  private final List<Thread> threads = new CopyOnWriteArrayList<>();

  @AfterEach
  void stopWaiters() throws InterruptedException {
    for (Thread thread : threads) {
      thread.interrupt();
      thread.join(10_000);
    }
  }

  @Test
  void aBudgetThatCannotWorkIsRejectedWithItsName() {
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> new DecodedBytesBudget(0));
    assertEquals("maxDecodedBytesInFlight must be at least 1 byte, got 0", zero.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new DecodedBytesBudget(-1));
  }

  @Test
  void theDefaultIsAQuarterOfTheHeapAndAtLeast64MiB() {
    assertEquals(GIB, DecodedBytesBudget.defaultMaxBytes(4 * GIB));
    assertEquals(64L << 20, DecodedBytesBudget.defaultMaxBytes(128L << 20));
    assertEquals(DecodedBytesBudget.defaultMaxBytes(Runtime.getRuntime().maxMemory()),
        DecodedBytesBudget.defaultMaxBytes());
  }

  @Test
  void bytesBeyondTheCapWaitUntilOthersAreGivenBack() throws Exception {
    DecodedBytesBudget budget = new DecodedBytesBudget(100);
    DecodedBytesBudget.Account account = budget.openAccount();
    DecodedBytesBudget.Lease sixty = account.acquire(60);
    DecodedBytesBudget.Lease forty = account.acquire(40);

    CompletableFuture<DecodedBytesBudget.Lease> one = acquireOnAThread(account, 1);
    awaitWaiting(budget, 1);
    assertEquals(100, budget.heldBytes());
    assertFalse(one.isDone());

    sixty.release();
    one.get(10, TimeUnit.SECONDS);
    assertEquals(41, budget.heldBytes());
    assertEquals(100, budget.highWaterMark());
    forty.release();
    forty.release();
    assertEquals(1, budget.heldBytes(), "a lease gives its bytes back once");
  }

  @Test
  void aChunkLargerThanTheWholeBudgetWaitsUntilItIsAloneThenGoesThrough() throws Exception {
    DecodedBytesBudget budget = new DecodedBytesBudget(100);
    DecodedBytesBudget.Account account = budget.openAccount();
    DecodedBytesBudget.Lease small = account.acquire(10);

    CompletableFuture<DecodedBytesBudget.Lease> huge = acquireOnAThread(account, 1_000);
    awaitWaiting(budget, 1);
    small.release();
    DecodedBytesBudget.Lease hugeLease = huge.get(10, TimeUnit.SECONDS);
    assertEquals(1_000, budget.heldBytes());

    CompletableFuture<DecodedBytesBudget.Lease> next = acquireOnAThread(account, 1);
    awaitWaiting(budget, 1);
    hugeLease.release();
    next.get(10, TimeUnit.SECONDS);
    assertEquals(1_000, budget.highWaterMark(), "the huge chunk went through alone");
  }

  @Test
  void aLargeRequestIsNotOvertakenBySmallerOnes() throws Exception {
    // Without this, a pull with small chunks could starve one with large chunks for ever.
    DecodedBytesBudget budget = new DecodedBytesBudget(100);
    DecodedBytesBudget.Account first = budget.openAccount();
    DecodedBytesBudget.Account second = budget.openAccount();
    DecodedBytesBudget.Lease held = first.acquire(60);

    CompletableFuture<DecodedBytesBudget.Lease> large = acquireOnAThread(first, 50);
    awaitWaiting(budget, 1);
    CompletableFuture<DecodedBytesBudget.Lease> small = acquireOnAThread(second, 10);
    awaitWaiting(budget, 2);
    assertEquals(60, budget.heldBytes(), "10 bytes would fit, but they queue behind the 50");

    held.release();
    large.get(10, TimeUnit.SECONDS);
    small.get(10, TimeUnit.SECONDS);
    assertEquals(60, budget.heldBytes());
  }

  @Test
  void closingAPullsAccountGivesBackWhatItHeldAndLaterReleasesChangeNothing() throws Exception {
    DecodedBytesBudget budget = new DecodedBytesBudget(100);
    DecodedBytesBudget.Account failedPull = budget.openAccount();
    DecodedBytesBudget.Account otherPull = budget.openAccount();
    DecodedBytesBudget.Lease stranded = failedPull.acquire(100);

    CompletableFuture<DecodedBytesBudget.Lease> waiting = acquireOnAThread(otherPull, 50);
    awaitWaiting(budget, 1);
    failedPull.close();
    waiting.get(10, TimeUnit.SECONDS);
    assertEquals(50, budget.heldBytes());

    stranded.release();
    assertEquals(50, budget.heldBytes(), "a lease of a closed account was already given back");
    // CompletableFuture.get throws a CancellationException it was completed with as is.
    assertThrows(CancellationException.class, () -> acquireOnAThread(failedPull, 1).get(10, TimeUnit.SECONDS));
    assertEquals(50, budget.heldBytes());
  }

  @Test
  void aBudgetOverTwoGibibytesCountsInLongs() throws Exception {
    DecodedBytesBudget budget = new DecodedBytesBudget(8 * GIB);
    DecodedBytesBudget.Account account = budget.openAccount();
    DecodedBytesBudget.Lease six = account.acquire(6 * GIB);
    account.acquire(GIB);
    assertEquals(7 * GIB, budget.heldBytes());

    CompletableFuture<DecodedBytesBudget.Lease> two = acquireOnAThread(account, 2 * GIB);
    awaitWaiting(budget, 1);
    six.release();
    two.get(10, TimeUnit.SECONDS);
    assertEquals(3 * GIB, budget.heldBytes());
    assertEquals(7 * GIB, budget.highWaterMark());
  }

  @Test
  void aWaitEndsOnInterrupt() throws Exception {
    DecodedBytesBudget budget = new DecodedBytesBudget(10);
    DecodedBytesBudget.Account account = budget.openAccount();
    account.acquire(10);
    CompletableFuture<DecodedBytesBudget.Lease> waiting = acquireOnAThread(account, 5);
    awaitWaiting(budget, 1);

    threads.get(0).interrupt();
    ExecutionException interrupted = assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS));
    assertEquals(InterruptedException.class, interrupted.getCause().getClass());
    assertEquals(0, budget.waiting());
  }

  private CompletableFuture<DecodedBytesBudget.Lease> acquireOnAThread(DecodedBytesBudget.Account account, long bytes) {
    CompletableFuture<DecodedBytesBudget.Lease> lease = new CompletableFuture<>();
    Thread thread = new Thread(() -> {
      try {
        lease.complete(account.acquire(bytes));
      } catch (Throwable t) {
        lease.completeExceptionally(t);
      }
    }, "budget-test-" + bytes);
    threads.add(thread);
    thread.start();
    return lease;
  }

  /** Polls the semaphore's queue: a condition, not a timed guess. */
  private static void awaitWaiting(DecodedBytesBudget budget, int count) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (budget.waiting() < count) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("fewer than " + count + " threads ever waited for the budget");
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }
}
