package io.mongocdc.activities;

import io.mongocdc.metrics.MirrorMetrics;
import io.mongocdc.ports.ConnectionLease;
import io.mongocdc.ports.ConnectionWaitLog;
import io.mongocdc.ports.GiveWay;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.workflows.model.MirrorConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an activity gets the destination connections it writes through: all of them at once, at
 * once when they are free and nobody waits before it, else after waiting its turn behind the
 * activities that asked first. A waiting activity keeps heartbeating (so it never outlives its
 * heartbeat timeout for want of a connection), is shown as waiting in the catalog ({@link
 * ConnectionWaitLog}) and the metrics, and stops waiting when its heartbeat is refused (cancelled).
 */
final class ConnectionTurns {

  private static final Logger log = LoggerFactory.getLogger(ConnectionTurns.class);

  /**
   * The longest pause between two looks of work that waits behind the batches ({@link
   * #takeBehindBatches}): a look is a semaphore's try, nearly free, and a small partition copies in
   * tens of milliseconds, which longer pauses would add to.
   */
  static final Duration BEHIND_BATCHES_LOOK_AT_MOST = Duration.ofMillis(10);

  /** How often a waiting activity heartbeats: well within any of its heartbeat timeouts. */
  static final Duration WAIT_HEARTBEAT = Duration.ofSeconds(2);

  private final MirrorDestination destination;
  private final ConnectionWaitLog waits;

  ConnectionTurns(MirrorDestination destination, ConnectionWaitLog waits) {
    this.destination = Objects.requireNonNull(destination, "destination");
    this.waits = Objects.requireNonNull(waits, "waits");
  }

  /**
   * The connections for {@code sinks} sinks and the work beside them ({@link
   * MirrorDestination#connectionsFor}).
   *
   * @param heartbeat sends a heartbeat; throws when the server refuses it
   * @param waitingDetails the heartbeat details while waiting, given when the wait began
   * @param what the work, for the log ("batch 7", "snapshot partition 3 of orders")
   * @throws InterruptedException if the thread is interrupted while waiting (the worker stops)
   */
  ConnectionLease take(PartitionHeartbeat.Sender heartbeat, MirrorConfig mirror, int sinks,
      Function<Instant, Object> waitingDetails, MirrorMetrics metrics, String what) throws InterruptedException {
    return take(heartbeat, mirror, sinks, waitingDetails, metrics, what, false);
  }

  /**
   * As {@link #take}, for work that gives way to the batches (a snapshot partition, copied beside
   * its mirror's batches): it looks for free connections now and then instead of queueing for
   * them, so no batch ends its turn early for it (a batch turns over only for the ones queued,
   * {@link ConnectionLease#othersWait}), and a batch that queues is served before it. Without this
   * a mirror's own partitions, waiting for the connections its batch holds, made that batch hand
   * them over every few hundred milliseconds.
   */
  ConnectionLease takeBehindBatches(PartitionHeartbeat.Sender heartbeat, MirrorConfig mirror, int sinks,
      Function<Instant, Object> waitingDetails, MirrorMetrics metrics, String what) throws InterruptedException {
    return take(heartbeat, mirror, sinks, waitingDetails, metrics, what, true);
  }

  /**
   * As {@link #takeBehindBatches}, for a copy that commits a transaction at a time: between two of its
   * transactions ({@link GiveWay}), when a batch queues for connections of the same budget, it
   * hands its own over and takes them again behind the batches. Without this a batch waited for
   * whole partitions to end (6-13 s with partitions of 62 500 documents).
   */
  CopyConnections takeForCopy(PartitionHeartbeat.Sender heartbeat, MirrorConfig mirror, int sinks,
      Function<Instant, Object> waitingDetails, MirrorMetrics metrics, String what) throws InterruptedException {
    return new CopyConnections(() -> takeBehindBatches(heartbeat, mirror, sinks, waitingDetails, metrics, what));
  }

  /** A copy's connections, given way to waiting batches between its transactions; closing gives them back. */
  static final class CopyConnections implements GiveWay, AutoCloseable {

    /** Takes the connections, waiting behind the batches. */
    @FunctionalInterface
    interface Taker {
      ConnectionLease take() throws InterruptedException;
    }

    private final Taker taker;
    /** Null while the connections are handed over. */
    private ConnectionLease lease;

    CopyConnections(Taker taker) throws InterruptedException {
      this.taker = taker;
      this.lease = taker.take();
    }

    @Override
    public boolean wanted() {
      return lease != null && lease.othersWait();
    }

    @Override
    public void giveWay() throws InterruptedException {
      ConnectionLease given = lease;
      lease = null;
      given.close();
      lease = taker.take();
    }

    @Override
    public void close() {
      if (lease != null) {
        lease.close();
        lease = null;
      }
    }
  }

  private ConnectionLease take(PartitionHeartbeat.Sender heartbeat, MirrorConfig mirror, int sinks,
      Function<Instant, Object> waitingDetails, MirrorMetrics metrics, String what, boolean behindBatches)
      throws InterruptedException {
    int needed = MirrorDestination.connectionsFor(sinks);
    Optional<ConnectionLease> free = destination.tryReserveConnections(mirror, needed);
    if (free.isPresent()) {
      return free.get();
    }
    Instant since = Instant.now();
    Object details = waitingDetails.apply(since);
    log.debug("mirror {} {}: waiting for {} destination connections (other batches or partitions hold them)",
        mirror.name(), what, needed);
    metrics.onConnectionWaitStarted();
    recordQuietly(mirror, since);
    Thread waiter = Thread.currentThread();
    ConnectionLease lease;
    PartitionHeartbeat beats = new PartitionHeartbeat(heartbeat, details, WAIT_HEARTBEAT,
        "mongo-cdc-" + mirror.name() + "-connection-wait", waiter::interrupt);
    try (beats) {
      beats.progress(details);
      lease = behindBatches ? lookFor(mirror, needed) : destination.awaitConnections(mirror, needed);
    } catch (InterruptedException e) {
      // A heartbeat the server refused (the activity was cancelled) ends the wait: say that.
      beats.throwIfFailed();
      throw e;
    } finally {
      recordQuietly(mirror, null);
      metrics.onConnectionWaitEnded(Duration.between(since, Instant.now()));
    }
    // The timer has stopped; a heartbeat refused just as the wait ended may have interrupted this thread.
    try {
      beats.throwIfFailed();
    } catch (RuntimeException e) {
      Thread.interrupted();
      lease.close();
      throw e;
    }
    log.info("mirror {} {}: got its {} destination connections after {} ms (other batches or partitions held them)",
        mirror.name(), what, needed, Duration.between(since, Instant.now()).toMillis());
    return lease;
  }

  /** Looks for {@code needed} free connections until they are, pausing longer each time, up to a bound. */
  private ConnectionLease lookFor(MirrorConfig mirror, int needed) throws InterruptedException {
    long pauseMillis = 1;
    while (true) {
      Optional<ConnectionLease> free = destination.tryReserveConnections(mirror, needed);
      if (free.isPresent()) {
        return free.get();
      }
      // Interrupted by a heartbeat the server refused, as the queued wait is.
      Thread.sleep(pauseMillis);
      pauseMillis = Math.min(BEHIND_BATCHES_LOOK_AT_MOST.toMillis(), pauseMillis * 2);
    }
  }

  /** The catalog shows the wait; one that cannot say so waits all the same. */
  private void recordQuietly(MirrorConfig mirror, Instant since) {
    try {
      waits.record(mirror.name(), since);
    } catch (RuntimeException e) {
      log.debug("mirror {}: cannot record its wait for destination connections", mirror.name(), e);
    }
  }
}
