package io.mongocdc.destination;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.pipeline.RecordSink;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL destination: applies change records to the mirror's tables idempotently and
 * in order per document, one transaction per batch.
 *
 * <h2>How a batch is applied</h2>
 *
 * <ol>
 *   <li>{@link #write} streams each chunk with binary {@code COPY} (PgJDBC's {@link
 *       CopyManager}) into a temporary staging table per destination table ({@code ON COMMIT
 *       DELETE ROWS}), inside the batch's open transaction. Memory on this side is one chunk.
 *   <li>{@link #commit} merges each staging table into its destination table in one statement:
 *       per {@code _id} only the record with the newest position counts (ties: the later
 *       one), and it replaces the row only if the row's {@code _position} is older. Then the
 *       transaction commits, and only then does {@code commit} return.
 * </ol>
 *
 * <p>So a replayed batch, an older batch, duplicates or records out of order never move a row
 * backwards: each row keeps the position (resume token) of the event that last wrote it.
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
 * rolls the transaction back and the blocked call fails promptly. Any failure rolls the batch
 * back and leaves the sink unusable (open a new one for the retry): nothing of the batch is
 * applied, and nothing is reported delivered.
 */
public final class PostgresRecordSink implements RecordSink, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PostgresRecordSink.class);

  private static final int ROW_FIELDS = 7;
  private static final int KEEP_BUFFER_BYTES = 1 << 20;

  private enum State {
    OPEN,
    FAILED,
    ABORTED,
    CLOSED
  }

  private final Connection connection;
  private final PGConnection pgConnection;
  private final CopyManager copyManager;
  private final PostgresSinkOptions options;
  private final Map<String, Target> targets = new HashMap<>();
  private final Map<String, Target> touched = new LinkedHashMap<>();

  private volatile State state = State.OPEN;
  private volatile Throwable failure;
  private long seq;
  private SinkBatchStats lastCommit = SinkBatchStats.EMPTY;

  private PostgresRecordSink(Connection connection, PostgresSinkOptions options)
      throws SQLException {
    this.connection = connection;
    this.pgConnection = connection.unwrap(PGConnection.class);
    this.copyManager = pgConnection.getCopyAPI();
    this.options = options;
  }

  /**
   * Opens a sink on a new connection from {@code dataSource}.
   *
   * @param tables the tables set up for the mirror ({@link PostgresDestination#setUp}); records
   *     for other tables get theirs created in the batch's transaction
   */
  public static PostgresRecordSink open(
      DataSource dataSource, PostgresSinkOptions options, Collection<DestinationTable> tables)
      throws SQLException {
    Objects.requireNonNull(options, "options");
    Connection connection = dataSource.getConnection();
    try {
      PostgresRecordSink sink = new PostgresRecordSink(connection, options);
      sink.init(tables);
      return sink;
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  private void init(Collection<DestinationTable> tables) throws SQLException {
    connection.setAutoCommit(false);
    try (Statement st = connection.createStatement()) {
      if (options.tempBuffers() != null) {
        // Only settable before the session first uses a temporary table.
        st.execute("set temp_buffers = " + PostgresDestination.literal(options.tempBuffers()));
      }
    }
    connection.commit();
    for (DestinationTable table : tables) {
      if (!table.schema().equals(options.schema())) {
        throw new IllegalArgumentException(
            "table " + table.qualifiedName() + " is not in the sink's schema " + options.schema());
      }
      Target existing = targets.get(table.name());
      if (existing != null && !existing.table.source().equals(table.source())) {
        throw new TableNameCollisionException(existing.table.source(), table.source(), table.name());
      }
      targets.put(table.name(), new Target(table, "mongo_cdc_stage_" + targets.size(), false));
    }
  }

  @Override
  public void write(List<ChangeRecord> records) throws Exception {
    requireOpen();
    try {
      List<Target> written = new ArrayList<>(4);
      for (ChangeRecord record : records) {
        Target target = target(record);
        if (!target.inBatch) {
          target.startBatch();
          touched.put(target.table.name(), target);
        }
        if (target.buffer.rows() == 0 && !written.contains(target)) {
          written.add(target);
        }
        target.add(record, seq++);
      }
      for (Target target : written) {
        if (target.buffer.rows() > 0) {
          target.flush();
        }
      }
    } catch (Exception e) {
      throw fail(e);
    }
  }

  @Override
  public void commit() throws Exception {
    requireOpen();
    try {
      List<SinkBatchStats.TableStats> stats = new ArrayList<>(touched.size());
      if (!touched.isEmpty()) {
        if (options.mergeWorkMem() != null) {
          try (Statement st = connection.createStatement()) {
            st.execute(
                "set local work_mem = " + PostgresDestination.literal(options.mergeWorkMem()));
          }
        }
        for (Target target : touched.values()) {
          stats.add(target.merge());
        }
      }
      connection.commit();
      for (Target target : touched.values()) {
        target.endBatch();
      }
      touched.clear();
      seq = 0;
      lastCommit = new SinkBatchStats(stats);
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

  /** Rolls back anything not committed and closes the connection. */
  @Override
  public void close() {
    synchronized (this) {
      if (state == State.CLOSED) {
        return;
      }
      state = State.CLOSED;
    }
    try {
      if (!connection.isClosed()) {
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
    try {
      connection.rollback();
    } catch (SQLException | RuntimeException rollbackFailure) {
      e.addSuppressed(rollbackFailure);
    }
    return e;
  }

  private Target target(ChangeRecord record) throws SQLException {
    Target target = targets.get(record.table());
    if (target != null) {
      if (!target.table.source().equals(record.source())) {
        throw new TableNameCollisionException(
            target.table.source(), record.source(), record.table());
      }
      return target;
    }
    // A collection that was not set up (e.g. created after the mirror started).
    DestinationTable table = new DestinationTable(record.source(), options.schema(), record.table());
    try (Statement st = connection.createStatement()) {
      st.execute("create schema if not exists " + TableNaming.quote(options.schema()));
    }
    PostgresDestination.createTable(connection, table);
    target = new Target(table, "mongo_cdc_stage_" + targets.size(), true);
    targets.put(table.name(), target);
    return target;
  }

  static String opCode(Operation op) {
    return switch (op) {
      case INSERT -> "i";
      case UPDATE -> "u";
      case REPLACE -> "r";
      case DELETE -> "d";
    };
  }

  /** Keys never contain NUL as rendered (JSON escapes it); a raw NUL becomes that escape. */
  static String keyText(String key) {
    return key.indexOf('\0') < 0 ? key : key.replace("\0", "\\u0000");
  }

  /** One destination table and its staging table. */
  private final class Target {
    final DestinationTable table;
    final String staging;
    final String copySql;
    final BinaryCopyBuffer buffer = new BinaryCopyBuffer();
    boolean stagingCreated;
    boolean inBatch;
    long inserts;
    long updates;
    long replaces;
    long deletes;
    long updatesWithoutDocument;
    long sanitized;
    long bytes;
    long staged;

    Target(DestinationTable table, String staging, boolean unused) {
      this.table = table;
      this.staging = "pg_temp." + TableNaming.quote(staging);
      this.copySql =
          "copy "
              + this.staging
              + " (seq, op, id, doc, raw_doc, position, commit_time) from stdin (format binary)";
      buffer.reset();
    }

    void startBatch() throws SQLException {
      if (!stagingCreated) {
        try (Statement st = connection.createStatement()) {
          st.execute(
              "create temporary table if not exists "
                  + staging
                  + " (seq bigint not null, op text not null, id text collate \"C\" not null,"
                  + " doc text, raw_doc text, position text collate \"C\" not null,"
                  + " commit_time timestamptz not null) on commit delete rows");
        }
        stagingCreated = true;
      }
      inBatch = true;
      inserts = updates = replaces = deletes = updatesWithoutDocument = sanitized = bytes = 0;
      staged = 0;
    }

    void endBatch() {
      inBatch = false;
      buffer.trim(KEEP_BUFFER_BYTES);
    }

    void add(ChangeRecord record, long sequence) {
      bytes += record.sourceBytes();
      String doc = null;
      String raw = null;
      switch (record.operation()) {
        case INSERT -> inserts++;
        case REPLACE -> replaces++;
        case DELETE -> deletes++;
        case UPDATE -> updates++;
      }
      if (record.operation() != Operation.DELETE) {
        if (record.document() == null) {
          if (record.operation() == Operation.UPDATE) {
            updatesWithoutDocument++;
            return; // no post-image: nothing to apply (see the class comment)
          }
          throw new IllegalArgumentException(
              record.operation().operationType()
                  + " record without a document for key "
                  + record.key()
                  + " in "
                  + record.source()
                  + " at "
                  + record.position());
        }
        doc = JsonbSanitizer.sanitize(record.document());
        if (doc != record.document()) {
          raw = record.document();
          sanitized++;
        }
      }
      buffer.startRow(ROW_FIELDS);
      buffer.putBigint(sequence);
      buffer.putText(opCode(record.operation()));
      buffer.putText(keyText(record.key()));
      buffer.putText(doc);
      buffer.putText(raw);
      buffer.putText(record.position().data());
      buffer.putTimestamptz(record.commitTime());
      staged++;
    }

    void flush() throws SQLException {
      buffer.finish();
      CopyIn copy = copyManager.copyIn(copySql);
      try {
        copy.writeToCopy(buffer.array(), 0, buffer.size());
        copy.endCopy();
      } finally {
        if (copy.isActive()) {
          copy.cancelCopy();
        }
        buffer.reset();
      }
    }

    SinkBatchStats.TableStats merge() throws SQLException {
      long changed = 0;
      if (staged > 0) {
        try (Statement st = connection.createStatement();
            ResultSet rs = st.executeQuery(mergeSql())) {
          rs.next();
          changed = rs.getLong(1) + rs.getLong(2);
        }
      }
      return new SinkBatchStats.TableStats(
          table, inserts, updates, replaces, deletes, updatesWithoutDocument, sanitized, bytes,
          changed);
    }

    String mergeSql() {
      String t = table.qualifiedName();
      boolean hard = options.deleteMode() == DeleteMode.HARD;
      StringBuilder sql = new StringBuilder(1024);
      // The newest record per key (narrow rows, so the sort stays in memory), then its row.
      sql.append("with w as materialized (select distinct on (id) seq, id, position, op from ")
          .append(staging)
          .append(" order by id, position desc, seq desc)");
      if (hard) {
        sql.append(", del as (delete from ")
            .append(t)
            .append(" t using w where w.op = 'd' and t.\"_id\" = w.id")
            .append(" and t.\"_position\" < w.position returning 1)");
      }
      sql.append(", ins as (insert into ")
          .append(t)
          .append(" as t (\"_id\", \"doc\", \"_raw_doc\", \"_position\", \"_commit_time\",")
          .append(" \"_deleted\", \"_synced_at\")")
          .append(" select s.id, s.doc::jsonb, s.raw_doc, s.position, s.commit_time,")
          .append(" s.op = 'd', now() from w join ")
          .append(staging)
          .append(" s on s.seq = w.seq");
      if (hard) {
        sql.append(" where w.op <> 'd'");
      }
      sql.append(" on conflict (\"_id\") do update set")
          .append(" \"doc\" = case when excluded.\"_deleted\" then t.\"doc\" else excluded.\"doc\" end,")
          .append(" \"_raw_doc\" = case when excluded.\"_deleted\" then t.\"_raw_doc\"")
          .append(" else excluded.\"_raw_doc\" end,")
          .append(" \"_position\" = excluded.\"_position\",")
          .append(" \"_commit_time\" = excluded.\"_commit_time\",")
          .append(" \"_deleted\" = excluded.\"_deleted\",")
          .append(" \"_synced_at\" = excluded.\"_synced_at\"")
          .append(" where t.\"_position\" < excluded.\"_position\" returning 1)")
          .append(" select ")
          .append(hard ? "(select count(*) from del)" : "0")
          .append(", (select count(*) from ins)");
      return sql.toString();
    }
  }
}
