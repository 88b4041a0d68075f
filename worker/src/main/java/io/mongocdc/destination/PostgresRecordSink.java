package io.mongocdc.destination;

import io.mongocdc.decode.JsonbSanitizer;
import com.zaxxer.hikari.HikariDataSource;
import io.mongocdc.ports.BatchSink;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjection;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.workflows.model.ColumnDrift;
import java.sql.Connection;
import java.sql.PreparedStatement;
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
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL destination: applies change records to the mirror's tables idempotently and
 * in order per document, in one transaction from the first {@link #write} after a commit to the
 * next {@link #commit}, on one connection. Several sinks of one mirror may apply in parallel on
 * their own connections (apply lanes, see {@code PullRecords}) as long as each key is written by
 * one of them.
 *
 * <h2>How a transaction is applied</h2>
 *
 * <p>Round trips do not grow with the number of chunks: records are grouped by table, and
 *
 * <ol>
 *   <li>in a table that was empty when the transaction began, a key's first record (not a
 *       delete) is copied straight into the table with binary {@code COPY}: nothing can be
 *       newer. Consecutive chunks for the same table share one open COPY;
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
 */
public final class PostgresRecordSink implements BatchSink {

  private static final Logger log = LoggerFactory.getLogger(PostgresRecordSink.class);

  private static final int STAGED_FIELDS = 6;
  private static final int KEEP_BUFFER_BYTES = 1 << 20;
  /** COPY data is sent in pieces of about this size while a merge's records are encoded. */
  private static final int SEND_BUFFER_BYTES = 1 << 20;
  /** Keys per table and transaction tracked for the direct COPY into an empty table (8 to 16 bytes each). */
  private static final int MAX_TRACKED_KEYS = 1 << 20;

  private enum State {
    OPEN,
    FAILED,
    ABORTED,
    CLOSED
  }

  private final DataSource dataSource;
  private final TableClaim claims;
  private final Connection connection;
  private final PGConnection pgConnection;
  private final CopyManager copyManager;
  private final PostgresSinkOptions options;
  private final Predicate<Namespace> keepsHistory;
  private final ColumnProjections projections;
  private final Map<String, Target> targets = new HashMap<>();
  private final Map<String, Target> touched = new LinkedHashMap<>();

  private volatile State state = State.OPEN;
  private volatile Throwable failure;
  private boolean inTransaction;
  private long pendingBytesTotal;
  private CopyIn activeCopy;
  private String activeCopySql;
  private SinkBatchStats lastCommit = SinkBatchStats.EMPTY;
  private long historyRowsCommitted;
  private Map<String, Map<String, Long>> driftCommitted = Map.of();

  private PostgresRecordSink(DataSource dataSource, TableClaim claims, Connection connection,
      PostgresSinkOptions options, Predicate<Namespace> keepsHistory, ColumnProjections projections)
      throws SQLException {
    this.dataSource = dataSource;
    this.projections = projections;
    this.claims = claims;
    this.keepsHistory = keepsHistory;
    this.connection = connection;
    this.pgConnection = connection.unwrap(PGConnection.class);
    this.copyManager = pgConnection.getCopyAPI();
    this.options = options;
  }

  /**
   * Opens a sink on a new connection from {@code dataSource} whose new tables no catalog records
   * ({@link TableClaim#NONE}).
   */
  public static PostgresRecordSink open(
      DataSource dataSource, PostgresSinkOptions options, Collection<DestinationTable> tables)
      throws SQLException {
    return open(dataSource, options, tables, TableClaim.NONE);
  }

  /**
   * Opens a sink on a new connection from {@code dataSource}.
   *
   * @param tables the tables set up for the mirror ({@link PostgresDestination#setUp}); records
   *     for other tables get theirs created on the way
   * @param claims records a table as the mirror's before the sink creates it on the way
   */
  public static PostgresRecordSink open(
      DataSource dataSource, PostgresSinkOptions options, Collection<DestinationTable> tables, TableClaim claims)
      throws SQLException {
    return open(dataSource, options, tables, claims, ns -> false);
  }

  /**
   * Opens a sink that also appends every record of a collection that {@code keepsHistory} to
   * that table's history table ({@code <table>_history}, created on the way if missing).
   */
  public static PostgresRecordSink open(DataSource dataSource, PostgresSinkOptions options,
      Collection<DestinationTable> tables, TableClaim claims, Predicate<Namespace> keepsHistory) throws SQLException {
    return open(dataSource, options, tables, claims, keepsHistory, ColumnProjections.NONE);
  }

  /**
   * Opens a sink that also writes the typed columns {@code projections} gives each table (added to
   * the table on the way if missing), with their {@code _drift}, in the same rows as {@code doc}.
   */
  public static PostgresRecordSink open(DataSource dataSource, PostgresSinkOptions options,
      Collection<DestinationTable> tables, TableClaim claims, Predicate<Namespace> keepsHistory,
      ColumnProjections projections) throws SQLException {
    Objects.requireNonNull(projections, "projections");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(claims, "claims");
    Objects.requireNonNull(keepsHistory, "keepsHistory");
    Connection connection = dataSource.getConnection();
    try {
      PostgresRecordSink sink =
          new PostgresRecordSink(dataSource, claims, connection, options, keepsHistory, projections);
      sink.init(tables);
      return sink;
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  private void init(Collection<DestinationTable> tables) throws SQLException {
    connection.setAutoCommit(false);
    if (options.tempBuffers() != null) {
      // Only settable before the session first uses a temporary table; a pooled session that
      // was set up by an earlier sink already has it.
      try (PreparedStatement ps = connection.prepareStatement(
          "select set_config('temp_buffers', ?, false)"
              + " where pg_size_bytes(current_setting('temp_buffers')) <> pg_size_bytes(?)")) {
        ps.setString(1, options.tempBuffers());
        ps.setString(2, options.tempBuffers());
        ps.executeQuery().close();
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
      targets.put(table.name(), newTarget(table));
    }
  }

  private Target newTarget(DestinationTable table) {
    int n = targets.size();
    HistoryAppender history = keepsHistory.test(table.source())
        ? new HistoryAppender(PostgresDestination.historyOf(table), "mongo_cdc_history_stage_" + n)
        : null;
    DocumentProjector projector = projections.of(table.source());
    List<ColumnProjection> columns = projector == null ? List.of() : projector.columns();
    // The layout is in the name: a pooled session may keep a staging table of another layout.
    String staging = "mongo_cdc_stage_" + n + (columns.isEmpty() ? "" : "_" + Integer.toHexString(columns.hashCode()));
    return new Target(table, staging, history, columns);
  }

  @Override
  public void write(List<ChangeRecord> records) throws Exception {
    requireOpen();
    try {
      beginTransaction();
      // group by table, keeping source order within each table
      Map<Target, List<ChangeRecord>> chunk = new LinkedHashMap<>();
      for (ChangeRecord record : records) {
        Target target = target(record);
        if (!target.inBatch) {
          target.startBatch();
          touched.put(target.table.name(), target);
        }
        chunk.computeIfAbsent(target, t -> new ArrayList<>(records.size())).add(record);
      }
      for (Map.Entry<Target, List<ChangeRecord>> e : chunk.entrySet()) {
        e.getKey().write(e.getValue());
      }
      if (pendingBytesTotal >= options.flushBytes()) {
        for (Target target : touched.values()) {
          target.flush();
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
    if (options.mergeWorkMem() != null) {
      try (PreparedStatement ps = connection.prepareStatement("select set_config('work_mem', ?, true)")) {
        ps.setString(1, options.mergeWorkMem());
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
      for (Target target : touched.values()) {
        stats.add(target.finish());
      }
      finishCopy();
      connection.commit();
      inTransaction = false;
      for (Target target : touched.values()) {
        target.endBatch();
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
    if (aborted && dataSource instanceof HikariDataSource pool) {
      // The abort closed the session. Handed back, the pool would find it broken on its own,
      // with a warning and a stack trace for every failed batch; evicting it says it is known.
      pool.evictConnection(connection);
      return;
    }
    try {
      if (!connection.isClosed()) {
        cancelCopyQuietly();
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
    cancelCopyQuietly();
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
    // A collection that was not set up (e.g. created after the mirror started). Its table is
    // created and committed on a connection of its own, under an advisory lock, so that the
    // apply lanes of a batch (or a stale attempt) meeting it at the same time do not race on
    // the DDL; rows written later roll back without it. It is claimed for the mirror first, so
    // a table another mirror owns is neither created nor written.
    DestinationTable table = new DestinationTable(record.source(), options.schema(), record.table());
    claims.claim(table);
    createOnOwnConnection(ddl -> PostgresDestination.createTable(ddl, table));
    target = newTarget(table);
    targets.put(table.name(), target);
    return target;
  }

  /** Runs DDL on a connection of its own, committed at once, under the DDL advisory lock. */
  private void createOnOwnConnection(DestinationDdl.Step ddl) throws SQLException {
    DestinationDdl.run(dataSource, options.schema(), ddl);
  }

  /**
   * Sends rows into a COPY that stays open across chunks while consecutive writes go to the
   * same table, so a bulk load is one COPY, not one per chunk. Any other statement ends it
   * first ({@link #finishCopy}).
   */
  private void stream(String copySql, BinaryCopyBuffer rows) throws SQLException {
    try {
      if (activeCopy != null && !copySql.equals(activeCopySql)) {
        finishCopy();
      }
      if (activeCopy == null) {
        activeCopy = copyManager.copyIn(copySql);
        activeCopySql = copySql;
        activeCopy.writeToCopy(BinaryCopyBuffer.HEADER, 0, BinaryCopyBuffer.HEADER.length);
      }
      activeCopy.writeToCopy(rows.array(), 0, rows.size());
    } finally {
      rows.reset();
    }
  }

  /** Ends the open COPY, if any; its errors (a bad row, a duplicate key) surface here. */
  private void finishCopy() throws SQLException {
    CopyIn copy = activeCopy;
    if (copy == null) {
      return;
    }
    activeCopy = null;
    activeCopySql = null;
    try {
      copy.writeToCopy(BinaryCopyBuffer.TRAILER, 0, BinaryCopyBuffer.TRAILER.length);
      copy.endCopy();
    } finally {
      if (copy.isActive()) {
        copy.cancelCopy();
      }
    }
  }

  private void cancelCopyQuietly() {
    CopyIn copy = activeCopy;
    activeCopy = null;
    activeCopySql = null;
    if (copy != null && copy.isActive()) {
      try {
        copy.cancelCopy();
      } catch (SQLException | RuntimeException e) {
        log.debug("cancelling the open COPY failed", e);
      }
    }
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

  /** One destination table, its staging table, and the records waiting for the next merge. */
  private final class Target {
    final DestinationTable table;
    final String staging;
    final String copySql;
    final String directCopySql;
    final BinaryCopyBuffer buffer = new BinaryCopyBuffer();
    final BinaryCopyBuffer direct = new BinaryCopyBuffer();
    final KeyHashSet keys = new KeyHashSet(MAX_TRACKED_KEYS);
    /** Where every record also goes, or null when the table keeps no history. */
    final HistoryAppender history;
    boolean historyReady;
    /** The table's typed columns, in order; empty when it has none. */
    final List<ColumnProjection> columns;
    boolean columnsReady;
    /** Per key only its newest record: what the next merge applies. */
    final Map<String, ChangeRecord> pending = new LinkedHashMap<>();
    boolean stagingCreated;
    boolean inBatch;
    boolean emptyAtStart;
    long pendingBytes;
    long inserts;
    long updates;
    long replaces;
    long deletes;
    long updatesWithoutDocument;
    long sanitized;
    long bytes;
    long changed;
    /** Rows written this batch whose typed column drifted, by column. */
    final Map<String, Long> drift = new LinkedHashMap<>();

    Target(DestinationTable table, String staging, HistoryAppender history, List<ColumnProjection> columns) {
      this.table = table;
      this.history = history;
      this.columns = columns;
      this.staging = "pg_temp." + TableNaming.quote(staging);
      this.copySql =
          "copy "
              + this.staging
              + " (op, id, doc, raw_doc, position, commit_time" + stagedTypedColumns() + ") from stdin (format binary)";
      this.directCopySql =
          "copy "
              + table.qualifiedName()
              + " (\"_id\", \"doc\", \"_raw_doc\", \"_position\", \"_commit_time\"" + typedColumns("") + ")"
              + " from stdin (format binary)";
    }

    /** {@code , "a", "b", "_drift"} with each name after {@code prefix}; empty without typed columns. */
    private String typedColumns(String prefix) {
      StringBuilder names = new StringBuilder();
      for (ColumnProjection column : columns) {
        names.append(", ").append(prefix).append(TableNaming.quote(column.name()));
      }
      if (!columns.isEmpty()) {
        names.append(", ").append(prefix).append(TableNaming.quote(TypedColumnTable.DRIFT));
      }
      return names.toString();
    }

    /** The staging table's typed columns: {@code , c0, c1, drift}; positional, so no user name is needed there. */
    private String stagedTypedColumns() {
      StringBuilder names = new StringBuilder();
      for (int i = 0; i < columns.size(); i++) {
        names.append(", c").append(i);
      }
      return columns.isEmpty() ? "" : names.append(", drift").toString();
    }

    private String stagedTypedColumnDefinitions() {
      StringBuilder definitions = new StringBuilder();
      for (int i = 0; i < columns.size(); i++) {
        definitions.append(", c").append(i).append(' ').append(columns.get(i).type().sql());
      }
      return columns.isEmpty() ? "" : definitions.append(", drift jsonb").toString();
    }

    void startBatch() throws SQLException {
      finishCopy();
      try (Statement st = connection.createStatement()) {
        if (!stagingCreated) {
          // A pooled session may already have it (it outlives our transaction, its rows do not).
          st.execute(
              "create temporary table if not exists "
                  + staging
                  + " (op text not null, id text collate \"C\" not null,"
                  + " doc text, raw_doc text, position text collate \"C\" not null,"
                  + " commit_time timestamptz not null" + stagedTypedColumnDefinitions() + ") on commit delete rows");
          stagingCreated = true;
        }
        if (history != null && !history.stagingCreated) {
          st.execute(history.createStagingSql());
          history.stagingCreated = true;
        }
      }
      if (!columnsReady && !columns.isEmpty()) {
        // Declared at create, added by an edit, or a collection met on the way: the table gets
        // the columns before its first row of this sink. Checked again under the DDL lock, so
        // lanes meeting the table at once add them once and never wait for each other's rows.
        if (!TypedColumnTable.missing(connection, table, columns).isEmpty()) {
          createOnOwnConnection(ddl -> TypedColumnTable.addMissing(ddl, table, columns));
        }
      }
      columnsReady = true;
      // One round trip: whether the table is empty and, once per sink, whether its history table exists.
      try (PreparedStatement ps = connection.prepareStatement(
          "select not exists (select 1 from " + table.qualifiedName() + "), exists (select 1 from pg_class c"
              + " join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and c.relname = ?)")) {
        ps.setString(1, table.schema());
        ps.setString(2, history == null || historyReady ? "" : history.table.name());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          emptyAtStart = rs.getBoolean(1);
          if (history != null && !historyReady && !rs.getBoolean(2)) {
            // History turned on for a table that has none yet (an edit, or a collection met on the way).
            claims.claim(history.table);
            createOnOwnConnection(ddl -> PostgresDestination.createHistoryTable(ddl, history.table));
          }
        }
      }
      historyReady = true;
      if (history != null) {
        history.startBatch();
      }
      inBatch = true;
      inserts = updates = replaces = deletes = updatesWithoutDocument = sanitized = bytes = 0;
      changed = 0;
      drift.clear();
      keys.clear();
    }

    void endBatch() {
      inBatch = false;
      buffer.trim(KEEP_BUFFER_BYTES);
      direct.trim(KEEP_BUFFER_BYTES);
      if (history != null) {
        history.buffer.trim(KEEP_BUFFER_BYTES);
      }
    }

    /**
     * Takes one chunk's records of this table. In a table that was empty when the batch began,
     * a key's first record (unless a delete) is copied straight into the table: no row can be
     * newer, and this is the cheapest way in. Every other record waits in {@link #pending},
     * which keeps only each key's latest record, for the next {@link #flush}; no round trip is
     * spent deciding which keys exist, the merge does.
     */
    void write(List<ChangeRecord> records) throws SQLException {
      for (ChangeRecord record : records) {
        bytes += record.sourceBytes();
        switch (record.operation()) {
          case INSERT -> inserts++;
          case REPLACE -> replaces++;
          case DELETE -> deletes++;
          case UPDATE -> updates++;
        }
        if (history != null) {
          history.add(record, keyText(record.key()));
        }
        if (record.operation() != Operation.DELETE && record.document() == null) {
          if (record.operation() == Operation.UPDATE) {
            updatesWithoutDocument++;
            continue; // no post-image: nothing to apply (see the class comment)
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
        String key = keyText(record.key());
        boolean fresh = emptyAtStart && keys.addIfAbsent(key);
        if (fresh && record.operation() != Operation.DELETE) {
          String doc = sanitize(record);
          direct.startRow(5 + TypedColumnCopy.fields(columns));
          direct.putText(key);
          direct.putJsonb(doc);
          direct.putText(raw(record, doc));
          direct.putText(record.position().data());
          direct.putTimestamptz(record.commitTime());
          TypedColumnCopy.put(direct, columns, record.typed());
          countDrift(record);
        } else {
          ChangeRecord waiting = pending.get(key);
          // Replays and retries can bring records out of order: the newest position wins, and
          // for the same position the later record.
          if (waiting == null || record.position().compareTo(waiting.position()) >= 0) {
            pending.put(key, record);
            long delta = record.sourceBytes() - (waiting == null ? 0 : waiting.sourceBytes());
            pendingBytes += delta;
            pendingBytesTotal += delta;
          }
        }
      }
      if (direct.rows() > 0) {
        changed += direct.rows();
        stream(directCopySql, direct);
      }
      if (pending.size() >= options.flushRecords()) {
        flush();
      } else if (history != null) {
        if (history.staged >= options.flushRecords()) {
          appendHistory();
        } else if (history.buffer.size() >= SEND_BUFFER_BYTES) {
          stream(history.copySql, history.buffer);
        }
      }
    }

    /** Moves the history rows staged so far into the history table (same transaction). */
    void appendHistory() throws SQLException {
      if (history == null || history.staged == 0) {
        return;
      }
      if (history.buffer.rows() > 0) {
        stream(history.copySql, history.buffer);
      }
      finishCopy();
      try (Statement st = connection.createStatement()) {
        st.execute(history.appendSql());
        history.appended += st.getUpdateCount();
        while (st.getMoreResults() || st.getUpdateCount() >= 0) {
          // drain the truncate's result
        }
      }
      history.staged = 0;
    }

    /**
     * Merges the pending records into the table, inside the open transaction: one binary COPY
     * into staging, then one round trip that analyzes staging (so the planner probes the
     * table's primary key for a small batch instead of scanning a large table), applies it, and
     * empties it. Each key is in staging once, so no de-duplication is needed, and successive
     * merges of one key happen in source order.
     */
    void flush() throws SQLException {
      appendHistory();
      if (pending.isEmpty()) {
        return;
      }
      for (Map.Entry<String, ChangeRecord> entry : pending.entrySet()) {
        ChangeRecord record = entry.getValue();
        String doc = record.operation() == Operation.DELETE ? null : sanitize(record);
        buffer.startRow(STAGED_FIELDS + TypedColumnCopy.fields(columns));
        buffer.putText(opCode(record.operation()));
        buffer.putText(entry.getKey());
        buffer.putText(doc);
        buffer.putText(raw(record, doc));
        buffer.putText(record.position().data());
        buffer.putTimestamptz(record.commitTime());
        TypedColumnCopy.put(buffer, columns, record.operation() == Operation.DELETE ? null : record.typed());
        if (record.operation() != Operation.DELETE) {
          countDrift(record);
        }
        if (buffer.size() >= SEND_BUFFER_BYTES) {
          stream(copySql, buffer);
        }
      }
      if (buffer.rows() > 0) {
        stream(copySql, buffer);
      }
      finishCopy();
      try (Statement st = connection.createStatement()) {
        boolean isResult =
            st.execute(
                "set local default_statistics_target = 10; analyze "
                    + staging
                    + " (id); "
                    + mergeSql()
                    + "; truncate "
                    + staging);
        while (!isResult) {
          if (st.getUpdateCount() < 0) {
            throw new SQLException("the merge into " + table.qualifiedName() + " returned no counts");
          }
          isResult = st.getMoreResults();
        }
        try (ResultSet rs = st.getResultSet()) {
          rs.next();
          changed += rs.getLong(1) + rs.getLong(2);
        }
        while (st.getMoreResults() || st.getUpdateCount() >= 0) {
          // drain the results of the statements after the merge
        }
      }
      pendingBytesTotal -= pendingBytes;
      pendingBytes = 0;
      pending.clear();
    }

    /** Counts the columns of a written record that drifted (see {@link SinkBatchStats.TableStats#drift}). */
    private void countDrift(ChangeRecord record) {
      if (record.typed() != null) {
        for (String column : record.typed().drifted()) {
          drift.merge(column, 1L, Long::sum);
        }
      }
    }

    private String sanitize(ChangeRecord record) {
      String doc = JsonbSanitizer.sanitize(record.document());
      if (doc != record.document()) {
        sanitized++;
      }
      return doc;
    }

    /** The exact JSON when jsonb could not hold it as it was, else null. */
    private String raw(ChangeRecord record, String doc) {
      return doc != null && doc != record.document() ? record.document() : null;
    }

    SinkBatchStats.TableStats finish() throws SQLException {
      flush();
      return new SinkBatchStats.TableStats(
          table, inserts, updates, replaces, deletes, updatesWithoutDocument, sanitized, bytes,
          changed, history == null ? 0 : history.appended, Map.copyOf(drift));
    }

    /**
     * One statement over the staged records (one per key): against the rows as they were
     * before the statement, (hard mode) remove rows that a newer delete names, update rows that
     * a newer record names, and insert keys that have no row. Update and insert touch disjoint
     * keys, so a plain INSERT (cheaper than ON CONFLICT's speculative insertion) is enough. The
     * sink is meant to be its tables' only writer; a row another writer inserts meanwhile makes
     * the batch fail on the primary key (and be retried), never apply wrongly.
     */
    /** The typed columns' quoted names, then {@code "_drift"}; empty without typed columns. */
    private List<String> typedNames() {
      List<String> names = new ArrayList<>();
      columns.forEach(c -> names.add(TableNaming.quote(c.name())));
      if (!columns.isEmpty()) {
        names.add(TableNaming.quote(TypedColumnTable.DRIFT));
      }
      return names;
    }

    String mergeSql() {
      String t = table.qualifiedName();
      boolean hard = options.deleteMode() == DeleteMode.HARD;
      StringBuilder sql = new StringBuilder(1024);
      String w = staging;
      sql.append("with ");
      if (hard) {
        sql.append("del as (delete from ")
            .append(t)
            .append(" t using ")
            .append(w)
            .append(" w where w.op = 'd' and t.\"_id\" = w.id")
            .append(" and t.\"_position\" < w.position returning 1), ");
      }
      sql.append("upd as (update ")
          .append(t)
          .append(" t set")
          .append(" \"doc\" = case when w.op = 'd' then t.\"doc\" else w.doc::jsonb end,")
          .append(" \"_raw_doc\" = case when w.op = 'd' then t.\"_raw_doc\" else w.raw_doc end,")
          .append(" \"_position\" = w.position, \"_commit_time\" = w.commit_time,")
          .append(" \"_deleted\" = w.op = 'd', \"_synced_at\" = now()");
      List<String> targetColumns = typedNames();
      for (int i = 0; i < targetColumns.size(); i++) {
        String staged = i < columns.size() ? "w.c" + i : "w.drift";
        sql.append(", ").append(targetColumns.get(i)).append(" = case when w.op = 'd' then t.")
            .append(targetColumns.get(i)).append(" else ").append(staged).append(" end");
      }
      sql
          .append(" from ")
          .append(w)
          .append(" w where t.\"_id\" = w.id and t.\"_position\" < w.position");
      if (hard) {
        sql.append(" and w.op <> 'd'");
      }
      sql.append(" returning 1), ins as (insert into ")
          .append(t)
          .append(" (\"_id\", \"doc\", \"_raw_doc\", \"_position\", \"_commit_time\",")
          .append(" \"_deleted\", \"_synced_at\"").append(typedColumns("")).append(")")
          .append(" select w.id, w.doc::jsonb, w.raw_doc, w.position, w.commit_time,")
          .append(" w.op = 'd', now()").append(stagedTypedColumns().replace(", ", ", w.")).append(" from ")
          .append(w)
          .append(" w where not exists (select 1 from ")
          .append(t)
          .append(" e where e.\"_id\" = w.id)");
      if (hard) {
        sql.append(" and w.op <> 'd'");
      }
      sql.append(" returning 1) select ")
          .append(hard ? "(select count(*) from del)" : "0")
          .append(" + (select count(*) from upd), (select count(*) from ins)");
      return sql.toString();
    }
  }
}
