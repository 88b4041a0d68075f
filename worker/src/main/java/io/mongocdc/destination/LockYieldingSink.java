package io.mongocdc.destination;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.ports.GiveWay;
import io.mongocdc.workflows.model.ColumnDrift;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink of writers that run beside change batches and must give way to them: a snapshot
 * partition's copy and the sweep after a resync. Each of its transactions (from the first {@link
 * #write} after a commit to the next {@link #commit}) is meant to be short, one chunk, and runs with
 * a short {@code lock_timeout} ({@link #LOCK_TIMEOUT}); when it meets a lock held by another writer
 * for longer, or a deadlock, it is rolled back and the same records are written again on a new
 * {@link PostgresRecordSink}, after a short growing pause, until they commit or its bound runs out
 * ({@link DestinationLockedException}).
 *
 * <h2>Why this never deadlocks a batch</h2>
 *
 * <p>A copied row carries the copy's start position, older than every streamed change's, and the
 * merge only writes over an older position: whichever writer commits first, the rows end the same,
 * so either may wait for, or give way to, the other. Batch lanes wait for locks as long as they
 * must (the server's {@code lock_timeout}, none by default) and run the deadlock check after {@code
 * deadlock_timeout} (1 s by default). A copy transaction waits at most {@link #LOCK_TIMEOUT}, well
 * below that: in a lock cycle between a lane and a copy the copy gives up first and rolls back, its
 * locks go, and the lane goes on, having waited about that long, never failing with a deadlock.
 * (That holds unless the lane had already waited for the copy for most of {@code deadlock_timeout}
 * when the copy began to wait: a lane waits for a copy's row only while the copy's transaction, one
 * chunk, runs. Were PostgreSQL to find the cycle first, it could cancel either; a copy it cancels is
 * written again here like one that timed out.)
 *
 * <p>Records written since the last commit are kept until it (one chunk) so they can be written
 * again. {@link #abort} may come from another thread, as for any sink: it ends a pause at once.
 */
public final class LockYieldingSink implements RecordSink {

  private static final Logger log = LoggerFactory.getLogger(LockYieldingSink.class);

  /**
   * How long a yielding transaction waits for a lock: well below PostgreSQL's default {@code
   * deadlock_timeout} (1 s), so in a lock cycle with a batch lane this transaction gives up before
   * the lane's deadlock check runs, and short enough that a lane behind it waits little.
   */
  public static final Duration LOCK_TIMEOUT = Duration.ofMillis(100);

  /**
   * SQLSTATEs after which the same records are written again: lock_not_available (the lock
   * timeout), deadlock_detected, serialization_failure, and unique_violation: a batch inserted a
   * key between the merge's look for it and its insert (or into a table the copy found empty and
   * copied straight into); written again, the merge finds the row and keeps the newer of the two.
   */
  static final Set<String> YIELDING_SQL_STATES = Set.of("55P03", "40P01", "40001", "23505");

  /** How a yielding sink retries: at most {@code tries} and {@code within} in all, pausing {@code firstPause} doubled each time up to {@code maxPause}. */
  record Bounds(int tries, Duration within, Duration firstPause, Duration maxPause) {
    /** About two minutes of tries, after which the activity's retry copies the partition again. */
    static final Bounds DEFAULT = new Bounds(10_000, Duration.ofMinutes(2), Duration.ofMillis(5), Duration.ofMillis(500));

    Bounds {
      if (tries < 1) {
        throw new IllegalArgumentException("tries must be at least 1, got " + tries);
      }
      Objects.requireNonNull(within, "within");
      Objects.requireNonNull(firstPause, "firstPause");
      Objects.requireNonNull(maxPause, "maxPause");
    }

    /** The pause before try {@code next} (2, 3, ...), with jitter so that retrying writers do not meet again in step. */
    long pauseNanos(int next) {
      long pause = firstPause.toNanos() << Math.min(20, next - 2);
      pause = Math.min(pause, maxPause.toNanos());
      return pause / 2 + ThreadLocalRandom.current().nextLong(pause / 2 + 1);
    }
  }

  /**
   * Opens the sink each transaction runs on: one with {@link #LOCK_TIMEOUT} set, copying new keys
   * straight in if {@code straightIn} ({@link PostgresSinkBuilder#newKeysStraightIn}).
   */
  @FunctionalInterface
  interface Opener {
    PostgresRecordSink open(boolean straightIn) throws SQLException;
  }

  private static final String UNIQUE_VIOLATION = "23505";

  private final Opener opener;
  private final Bounds bounds;
  private final GiveWay giveWay;
  private final String what;
  private final List<ChangeRecord> uncommitted = new ArrayList<>();
  private final CountDownLatch aborted = new CountDownLatch(1);
  /** Whether transactions copy new keys straight in; off for good once a key had a row. */
  private boolean straightIn;

  /** The open transaction's sink; read by {@link #abort} from another thread. */
  private volatile PostgresRecordSink current;
  private volatile Throwable abortCause;
  private boolean closed;
  /** Read by tests from another thread. */
  private volatile long retries;
  private long givenWay;
  private long historyRowsCommitted;
  private Map<String, Map<String, Long>> driftCommitted = Map.of();

  /**
   * @param builder a sink builder for the destination; each transaction's sink is opened from it
   *     with {@link #LOCK_TIMEOUT}
   * @param what the writer, as its failure names it ("the copy", "the sweep")
   * @param straightIn whether to copy new keys straight in ({@link
   *     PostgresSinkBuilder#newKeysStraightIn}) until a key is found to have a row: for a copy,
   *     whose keys are mostly new
   */
  public static LockYieldingSink of(PostgresSinkBuilder builder, String what, boolean straightIn) {
    return of(builder, what, straightIn, GiveWay.NEVER);
  }

  /**
   * {@link #of(PostgresSinkBuilder, String, boolean)}, asking {@code giveWay} after each commit
   * whether to hand its connections over to a waiting batch.
   */
  public static LockYieldingSink of(PostgresSinkBuilder builder, String what, boolean straightIn, GiveWay giveWay) {
    return of(builder, what, straightIn, Bounds.DEFAULT, giveWay);
  }

  /** {@link #of(PostgresSinkBuilder, String, boolean)} giving up after {@code bounds}. */
  static LockYieldingSink of(PostgresSinkBuilder builder, String what, boolean straightIn, Bounds bounds) {
    return of(builder, what, straightIn, bounds, GiveWay.NEVER);
  }

  private static LockYieldingSink of(PostgresSinkBuilder builder, String what, boolean straightIn, Bounds bounds,
      GiveWay giveWay) {
    PostgresSinkBuilder yielding = builder.lockTimeout(LOCK_TIMEOUT);
    return new LockYieldingSink(yielding::open, bounds, what, straightIn, giveWay);
  }

  LockYieldingSink(Opener opener, Bounds bounds, String what, boolean straightIn) {
    this(opener, bounds, what, straightIn, GiveWay.NEVER);
  }

  LockYieldingSink(Opener opener, Bounds bounds, String what, boolean straightIn, GiveWay giveWay) {
    this.giveWay = Objects.requireNonNull(giveWay, "giveWay");
    this.straightIn = straightIn;
    this.opener = Objects.requireNonNull(opener, "opener");
    this.bounds = Objects.requireNonNull(bounds, "bounds");
    this.what = Objects.requireNonNull(what, "what");
  }

  @Override
  public void write(List<ChangeRecord> records) throws Exception {
    requireOpen();
    uncommitted.addAll(records);
    try {
      sink().write(records);
    } catch (Exception e) {
      writeAgain(e, false);
    }
  }

  @Override
  public void commit() throws Exception {
    requireOpen();
    PostgresRecordSink sink = current;
    if (sink != null) {
      try {
        sink.commit();
      } catch (Exception e) {
        writeAgain(e, true);
      }
    }
    uncommitted.clear();
    if (giveWay.wanted()) {
      // Nothing uncommitted: the connections go to the batch that waits, and come back after.
      closeCurrent();
      givenWay++;
      giveWay.giveWay();
    }
  }

  /** Times the sink handed its connections over to a waiting batch between two transactions (for tests). */
  long givenWay() {
    return givenWay;
  }

  /**
   * After {@code failure} of the transaction: if a lock made it fail, writes everything since the
   * last commit again in a new transaction (and commits it if {@code commit}), pausing before each
   * try, until it goes through; otherwise, or once the bounds are spent, fails.
   */
  private void writeAgain(Exception failure, boolean commit) throws Exception {
    long started = System.nanoTime();
    int tries = 1;
    Exception last = failure;
    while (true) {
      if (abortCause != null || !yields(last)) {
        throw last;
      }
      if (straightIn && hasSqlState(last, UNIQUE_VIOLATION)) {
        // A key copied straight in had a row (a resync, or a batch wrote it first): from now on
        // merge, which keeps the newer of the two.
        straightIn = false;
      }
      closeCurrent();
      long elapsed = System.nanoTime() - started;
      if (tries >= bounds.tries() || elapsed >= bounds.within().toNanos()) {
        throw new DestinationLockedException(what + " kept finding its rows locked by other writers (change"
            + " batches) and gave way " + tries + " times in " + TimeUnit.NANOSECONDS.toMillis(elapsed)
            + " ms; what it had not committed is written again when the activity is retried", last);
      }
      tries++;
      retries++;
      if (aborted.await(bounds.pauseNanos(tries), TimeUnit.NANOSECONDS)) {
        throw abortedException();
      }
      try {
        PostgresRecordSink sink = sink();
        sink.write(List.copyOf(uncommitted));
        if (commit) {
          sink.commit();
        }
        log.debug("{} wrote {} records on try {} after giving way to a lock", what, uncommitted.size(), tries);
        return;
      } catch (Exception e) {
        last = e;
      }
    }
  }

  /** Whether {@code failure} is a lock that another writer held: giving way and trying again fixes it. */
  static boolean yields(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null
          && YIELDING_SQL_STATES.contains(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasSqlState(Throwable failure, String sqlState) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sqlState.equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  private PostgresRecordSink sink() throws SQLException, SinkAbortedException {
    PostgresRecordSink sink = current;
    if (sink == null) {
      sink = opener.open(straightIn);
      current = sink;
      if (abortCause != null) {
        // An abort that came while the sink was opened did not see it.
        sink.abort(abortCause);
        throw abortedException();
      }
    }
    return sink;
  }

  /** Closes the transaction's sink (rolled back unless committed), keeping what it committed. */
  private void closeCurrent() {
    PostgresRecordSink sink = current;
    if (sink == null) {
      return;
    }
    historyRowsCommitted += sink.historyRowsCommitted();
    driftCommitted = ColumnDrift.plus(driftCommitted, sink.driftCommitted());
    current = null;
    sink.close();
  }

  /** Times a transaction was written again after giving way to a lock (for tests and logs). */
  long retries() {
    return retries;
  }

  @Override
  public long historyRowsCommitted() {
    PostgresRecordSink sink = current;
    return historyRowsCommitted + (sink == null ? 0 : sink.historyRowsCommitted());
  }

  @Override
  public Map<String, Map<String, Long>> driftCommitted() {
    PostgresRecordSink sink = current;
    return sink == null ? driftCommitted : ColumnDrift.plus(driftCommitted, sink.driftCommitted());
  }

  @Override
  public void abort(Throwable cause) {
    synchronized (this) {
      if (abortCause != null) {
        return;
      }
      abortCause = cause == null ? new IllegalStateException("aborted") : cause;
    }
    aborted.countDown();
    PostgresRecordSink sink = current;
    if (sink != null) {
      sink.abort(cause);
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeCurrent();
  }

  private void requireOpen() throws SinkAbortedException {
    if (abortCause != null) {
      throw abortedException();
    }
    if (closed) {
      throw new IllegalStateException("destination sink is closed; open a new one");
    }
  }

  private SinkAbortedException abortedException() {
    return new SinkAbortedException("destination sink was aborted", abortCause);
  }
}
