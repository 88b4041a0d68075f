package io.mongocdc.destination;

import io.mongocdc.decode.JsonbSanitizer;
import com.zaxxer.hikari.HikariDataSource;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.Namespace;
import io.mongocdc.workflows.model.ColumnDrift;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL destination: applies change records to the mirror's tables idempotently and
 * in order per document, in one transaction from the first {@link #write} after a commit to the
 * next {@link #commit}, on one connection. Several sinks of one mirror may apply in parallel on
 * their own connections (apply lanes, see {@code PullRecords}) as long as each key is written by
 * one of them. Opened with {@link #builder}.
 *
 * <h2>How a transaction is applied</h2>
 *
 * <p>Round trips do not grow with the number of chunks: records are grouped by table (each
 * table's part of the transaction is a {@link TableBatch}, its SQL text {@link SinkStatements}),
 * and
 *
 * <ol>
 *   <li>in a table that was empty when the transaction began, a key's first record (not a
 *       delete) is copied straight into the table with binary {@code COPY}: nothing can be
 *       newer (a snapshot copy's sink does so in any table, see {@link
 *       PostgresSinkBuilder#newKeysStraightIn}). Consecutive chunks for the same table share one open COPY ({@link CopyStream});
 *   <li>every other record waits in memory, where a newer record of the same key replaces it
 *       (repeated keys collapse to their latest event before anything is sent). Once {@link
 *       PostgresSinkOptions#flushRecords()} keys of a table wait, or {@link
 *       PostgresSinkOptions#flushBytes()} of source bytes over all tables, they are merged: one
 *       binary COPY into a temporary staging table ({@code ON COMMIT DELETE ROWS}), then one
 *       round trip whose statement updates rows whose {@code _position} is older than the
 *       record's and inserts keys without a row. The merge decides which keys exist;
 *   <li>{@link #commit} merges what still waits, commits, and only then returns.
 * </ol>
 *
 * <p>So a replayed batch, an older batch, duplicates or records out of order never move a row
 * backwards: each row keeps the position (resume token) of the event that last wrote it.
 * Memory on this side is bounded by the flush thresholds plus a set of 64-bit key hashes per
 * table.
 *
 * <p>A table whose collection keeps a change history also gets every record, uncollapsed, appended
 * to its {@code <table>_history} in the same transaction ({@link HistoryAppender}): staged with a
 * binary COPY and moved in at each merge, each event once however often it is replayed.
 *
 * <h2>Operations</h2>
 *
 * <ul>
 *   <li>insert, replace, and update with a post-image: the row becomes the document, {@code
 *       _deleted = false} (a newer insert after a delete brings the row back).
 *   <li>update without a post-image ({@code document} null: the document was deleted, or
 *       changed again, before the lookup ran): changes nothing, not even the position. The
 *       event that made the post-image unavailable (a delete, or a later update) follows in the
 *       stream and is applied then. Such records are counted in {@link
 *       SinkBatchStats.TableStats#updatesWithoutDocument()}.
 *   <li>delete, soft (default): {@code _deleted = true}, the last document kept; for a key not
 *       seen before a tombstone row ({@code doc} null) so older replays cannot resurrect it.
 *       Hard: the row is removed.
 * </ul>
 *
 * <h2>Failures and threads</h2>
 *
 * <p>{@code write} and {@code commit} are called from one thread; {@link #abort} may be called
 * from any other: it cancels the running statement and closes the connection, so the server
 * rolls the transaction back and the blocked call fails promptly. Any failure rolls the
 * transaction back and leaves the sink unusable (open a new one for the retry): nothing of it is
 * applied, and nothing is reported delivered.
 *
 * <p>A sink opened with a {@link PostgresSinkBuilder#lockTimeout} sets it in each transaction, so a
 * statement that waits longer for a lock fails (SQLSTATE 55P03): how a snapshot copy gives way to
 * batch lanes writing the same tables ({@link LockYieldingSink}).
 */
public final class PostgresRecordSink implements RecordSink {

  private static final Logger log = LoggerFactory.getLogger(PostgresRecordSink.class);

  private enum State {
    OPEN,
    FAILED,
    ABORTED,
    CLOSED
  }

  private final Connection connection;
  private final PGConnection pgConnection;
  private final SinkSession session;
  private final SinkTables tables;
  private final Map<String, TableBatch> touched = new LinkedHashMap<>();
  /** {@code lock_timeout} of each transaction in milliseconds, as text; null keeps the server's. */
  private final String lockTimeout;

  private volatile State state = State.OPEN;
  private volatile Throwable failure;
  private boolean inTransaction;
  private SinkBatchStats lastCommit = SinkBatchStats.EMPTY;
  private long historyRowsCommitted;
  private Map<String, Map<String, Long>> driftCommitted = Map.of();

  /**
   * A sink on a new connection from {@code dataSource}.
   *
   * @param tables the tables set up for the mirror ({@link PostgresDestination#setUp}); records
   *     for other tables get theirs created on the way
   */
  public static PostgresSinkBuilder builder(
      DataSource dataSource, PostgresSinkOptions options, Collection<DestinationTable> tables) {
    return new PostgresSinkBuilder(dataSource, options, tables);
  }

  PostgresRecordSink(DataSource dataSource, Connection connection, PostgresSinkOptions options, TableClaim claims,
      Predicate<Namespace> keepsHistory, ColumnProjections projections, Collection<DestinationTable> tables,
      Duration lockTimeout, boolean newKeysStraightIn) throws SQLException {
    this.lockTimeout = lockTimeout == null ? null : lockTimeout.toMillis() + "ms";
    this.connection = connection;
    this.pgConnection = connection.unwrap(PGConnection.class);
    this.session = new SinkSession(dataSource, connection, new CopyStream(pgConnection.getCopyAPI()), options, claims,
        newKeysStraightIn);
    startSession();
    this.tables = new SinkTables(session, keepsHistory, projections, tables);
  }

  private void startSession() throws SQLException {
    connection.setAutoCommit(false);
    String tempBuffers = session.options().tempBuffers();
    if (tempBuffers != null) {
      // Only settable before the session first uses a temporary table; a pooled session that
      // was set up by an earlier sink already has it.
      try (PreparedStatement ps = connection.prepareStatement(SinkStatements.SET_TEMP_BUFFERS)) {
        ps.setString(1, tempBuffers);
        ps.setString(2, tempBuffers);
        ps.executeQuery().close();
      }
    }
    connection.commit();
  }

  @Override
  public void write(List<ChangeRecord> records) throws Exception {
    requireOpen();
    try {
      beginTransaction();
      // group by table, keeping source order within each table
      Map<TableBatch, List<ChangeRecord>> chunk = new LinkedHashMap<>();
      for (ChangeRecord record : records) {
        TableBatch table = tables.of(record);
        if (!table.inBatch()) {
          table.startBatch();
          touched.put(table.table().name(), table);
        }
        chunk.computeIfAbsent(table, t -> new ArrayList<>(records.size())).add(record);
      }
      for (Map.Entry<TableBatch, List<ChangeRecord>> e : chunk.entrySet()) {
        e.getKey().write(e.getValue());
      }
      long pendingBytes = 0;
      for (TableBatch table : touched.values()) {
        pendingBytes += table.pendingBytes();
      }
      if (pendingBytes >= session.options().flushBytes()) {
        for (TableBatch table : touched.values()) {
          table.flush();
        }
      }
    } catch (Exception e) {
      throw fail(e);
    }
  }

  /** Session settings of the transaction, once, before its first statement. */
  private void beginTransaction() throws SQLException {
    if (inTransaction) {
      return;
    }
    String workMem = session.options().mergeWorkMem();
    if (workMem != null) {
      try (PreparedStatement ps = connection.prepareStatement(SinkStatements.SET_WORK_MEM)) {
        ps.setString(1, workMem);
        ps.executeQuery().close();
      }
    }
    if (lockTimeout != null) {
      try (PreparedStatement ps = connection.prepareStatement(SinkStatements.SET_LOCK_TIMEOUT)) {
        ps.setString(1, lockTimeout);
        ps.executeQuery().close();
      }
    }
    inTransaction = true;
  }

  @Override
  public void commit() throws Exception {
    requireOpen();
    try {
      List<SinkBatchStats.TableStats> stats = new ArrayList<>(touched.size());
      for (TableBatch table : touched.values()) {
        stats.add(table.finish());
      }
      session.copy().finish();
      connection.commit();
      inTransaction = false;
      for (TableBatch table : touched.values()) {
        table.endBatch();
      }
      touched.clear();
      lastCommit = new SinkBatchStats(stats);
      historyRowsCommitted += lastCommit.historyRows();
      driftCommitted = ColumnDrift.plus(driftCommitted, lastCommit.drift());
    } catch (Exception e) {
      throw fail(e);
    }
  }

  /** The server process id of the sink's connection (for tests and diagnostics). */
  int backendPid() {
    return pgConnection.getBackendPID();
  }

  /** What the last successful {@link #commit} applied. */
  public SinkBatchStats lastCommit() {
    return lastCommit;
  }

  @Override
  public Map<String, Map<String, Long>> driftCommitted() {
    return driftCommitted;
  }

  @Override
  public long historyRowsCommitted() {
    return historyRowsCommitted;
  }

  @Override
  public void abort(Throwable cause) {
    synchronized (this) {
      if (state == State.CLOSED || state == State.ABORTED) {
        return;
      }
      state = State.ABORTED;
      failure = cause;
    }
    try {
      pgConnection.cancelQuery();
    } catch (SQLException | RuntimeException e) {
      log.debug("cancel request failed", e);
    }
    try {
      // Closes the socket at once: a call blocked on it fails, the server rolls back.
      connection.abort(Runnable::run);
    } catch (SQLException | RuntimeException e) {
      log.debug("connection abort failed", e);
    }
  }

  /** Rolls back anything not committed and closes the connection (a pool takes it back). */
  @Override
  public void close() {
    boolean aborted;
    synchronized (this) {
      if (state == State.CLOSED) {
        return;
      }
      aborted = state == State.ABORTED;
      state = State.CLOSED;
    }
    if (aborted && session.dataSource() instanceof HikariDataSource pool) {
      // The abort closed the session. Handed back, the pool would find it broken on its own,
      // with a warning and a stack trace for every failed batch; evicting it says it is known.
      pool.evictConnection(connection);
      return;
    }
    try {
      if (!connection.isClosed()) {
        session.copy().cancelQuietly();
        connection.rollback();
      }
    } catch (SQLException e) {
      log.debug("rollback on close failed", e);
    }
    try {
      connection.close();
    } catch (SQLException e) {
      log.debug("close failed", e);
    }
  }

  private void requireOpen() throws SinkAbortedException {
    State s = state;
    if (s == State.OPEN) {
      return;
    }
    if (s == State.ABORTED) {
      throw new SinkAbortedException("destination sink was aborted", failure);
    }
    throw new IllegalStateException(
        "destination sink is " + s.name().toLowerCase() + "; open a new one", failure);
  }

  /** Marks the sink failed, rolls back what it can, and returns the exception to throw. */
  private Exception fail(Exception e) {
    synchronized (this) {
      if (state == State.ABORTED) {
        SinkAbortedException aborted =
            new SinkAbortedException("destination sink was aborted: " + failure, failure);
        aborted.addSuppressed(e);
        return aborted;
      }
      if (state == State.OPEN) {
        state = State.FAILED;
        failure = e;
      }
    }
    session.copy().cancelQuietly();
    try {
      connection.rollback();
    } catch (SQLException | RuntimeException rollbackFailure) {
      e.addSuppressed(rollbackFailure);
    }
    return e;
  }
}
