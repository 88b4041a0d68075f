package io.mongocdc.destination;

import io.mongocdc.ports.ConnectionLease;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The connections of one destination peer's pool that batches may hold, handed out whole: a batch
 * takes every connection it needs at once or waits for them holding none, so no batch sits on a
 * partial set while another waits for the rest. Waiters are served first come, first served (a
 * fair semaphore: one that needs many connections is not overtaken by later ones that need few),
 * so with more mirrors than the pool serves at once they take turns and none starves.
 */
final class ConnectionBudget {

  private final int connections;
  private final Semaphore free;

  /** @param connections the connections leases may hold together; at least 1 */
  ConnectionBudget(int connections) {
    if (connections < 1) {
      throw new IllegalArgumentException("a connection budget needs at least 1 connection, got " + connections);
    }
    this.connections = connections;
    this.free = new Semaphore(connections, true);
  }

  /**
   * The lease of {@code count} connections if they are free and nobody waits before this caller;
   * empty otherwise.
   */
  Optional<ConnectionLease> tryAcquire(int count) {
    requireFits(count);
    try {
      // The timed form keeps the queue's order: the untimed one takes free permits past waiters.
      return free.tryAcquire(count, 0, TimeUnit.NANOSECONDS) ? Optional.of(lease(count)) : Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /** Waits, in arrival order, until {@code count} connections are free, and leases them. */
  ConnectionLease acquire(int count) throws InterruptedException {
    requireFits(count);
    free.acquire(count);
    return lease(count);
  }

  /** Connections no lease holds now. */
  int available() {
    return free.availablePermits();
  }

  /** Callers waiting for connections now (an estimate while threads come and go). */
  int waiting() {
    return free.getQueueLength();
  }

  private ConnectionLease lease(int count) {
    AtomicBoolean open = new AtomicBoolean(true);
    return new ConnectionLease() {
      @Override
      public void close() {
        if (open.compareAndSet(true, false)) {
          free.release(count);
        }
      }

      @Override
      public boolean othersWait() {
        return free.hasQueuedThreads();
      }
    };
  }

  private void requireFits(int count) {
    if (count < 1 || count > connections) {
      throw new IllegalArgumentException("a lease of " + count + " connections cannot come from a budget of "
          + connections);
    }
  }
}
