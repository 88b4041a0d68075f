package io.mongocdc.destination;

import io.mongocdc.activities.BatchSink;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
 * <p>Everything happens in one transaction per batch (from the first {@link #write} after a
 * commit to the next {@link #commit}), with binary {@code COPY} through PgJDBC's {@link
 * CopyManager}. Memory on this side is one chunk plus a set of 64-bit key hashes per table.
 *
 * <ol>
 *   <li>{@link #write} splits each chunk by table. A record whose key is new (its table was
 *       empty at the batch start or has no row for the key, checked with one primary-key
 *       lookup per chunk, and the key was not written before in this batch) is copied straight
 *       into the table: nothing can be newer. Every other record (and every delete) is copied
 *       into a temporary staging table per destination table ({@code ON COMMIT DELETE ROWS}).
 *       Consecutive chunks for the same table share one open COPY.
 *   <li>{@link #commit} merges each staging table into its table: records superseded within
 *       the batch are dropped (per key only the newest position counts; for the same position
 *       the later record), then one statement updates rows whose {@code _position} is older
 *       than the record's and inserts keys without a row. Then the transaction commits, and
 *       only then does {@code commit} return.
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
public final class PostgresRecordSink implements BatchSink {

  private static final Logger log = LoggerFactory.getLogger(PostgresRecordSink.class);

  private static final int ROW_FIELDS = 7;
  private static final int KEEP_BUFFER_BYTES = 1 << 20;
  /** Keys per table and batch tracked to skip de-duplication (8 to 16 bytes each). */
  private static final int MAX_TRACKED_KEYS = 1 << 20;

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
  private CopyIn activeCopy;
  private String activeCopySql;
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
      targets.put(table.name(), new Target(table, "mongo_cdc_stage_" + targets.size()));
    }
  }

  @Override
  public void write(List<ChangeRecord> records) throws Exception {
    requireOpen();
    try {
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
    } catch (Exception e) {
      throw fail(e);
    }
  }

  @Override
  public void commit() throws Exception {
    requireOpen();
    try {
      finishCopy();
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
    // A collection that was not set up (e.g. created after the mirror started).
    finishCopy();
    DestinationTable table = new DestinationTable(record.source(), options.schema(), record.table());
    try (Statement st = connection.createStatement()) {
      st.execute("create schema if not exists " + TableNaming.quote(options.schema()));
    }
    PostgresDestination.createTable(connection, table);
    target = new Target(table, "mongo_cdc_stage_" + targets.size());
    targets.put(table.name(), target);
    return target;
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

  /** One destination table and its staging table. */
  private final class Target {
    final DestinationTable table;
    final String staging;
    final String copySql;
    final String directCopySql;
    final String existingSql;
    final BinaryCopyBuffer buffer = new BinaryCopyBuffer();
    final BinaryCopyBuffer direct = new BinaryCopyBuffer();
    final KeyHashSet keys = new KeyHashSet(MAX_TRACKED_KEYS);
    boolean stagingCreated;
    boolean inBatch;
    boolean emptyAtStart;
    long directRows;
    long inserts;
    long updates;
    long replaces;
    long deletes;
    long updatesWithoutDocument;
    long sanitized;
    long bytes;
    long staged;

    Target(DestinationTable table, String staging) {
      this.table = table;
      this.staging = "pg_temp." + TableNaming.quote(staging);
      this.copySql =
          "copy "
              + this.staging
              + " (seq, op, id, doc, raw_doc, position, commit_time) from stdin (format binary)";
      this.directCopySql =
          "copy "
              + table.qualifiedName()
              + " (\"_id\", \"doc\", \"_raw_doc\", \"_position\", \"_commit_time\")"
              + " from stdin (format binary)";
      this.existingSql =
          "select \"_id\" from " + table.qualifiedName() + " where \"_id\" = any (?)";
    }

    void startBatch() throws SQLException {
      finishCopy();
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
      directRows = 0;
      keys.clear();
      try (Statement st = connection.createStatement();
          ResultSet rs =
              st.executeQuery("select not exists (select 1 from " + table.qualifiedName() + ")")) {
        rs.next();
        emptyAtStart = rs.getBoolean(1);
      }
    }

    void endBatch() {
      inBatch = false;
      buffer.trim(KEEP_BUFFER_BYTES);
      direct.trim(KEEP_BUFFER_BYTES);
    }

    /**
     * Writes one chunk's records of this table. A record whose key is new to the table (not in
     * it at the check, and not written before in this batch) is copied straight into the
     * table: nothing can be newer, and this is the cheapest way in. Every other record goes to
     * staging, for the merge at commit. Deletes always go to staging.
     */
    void write(List<ChangeRecord> records) throws SQLException {
      int n = records.size();
      String[] keyTexts = new String[n];
      String[] docs = new String[n];
      boolean[] skip = new boolean[n];
      boolean[] fresh = new boolean[n];
      List<String> toCheck = emptyAtStart ? null : new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        ChangeRecord record = records.get(i);
        bytes += record.sourceBytes();
        switch (record.operation()) {
          case INSERT -> inserts++;
          case REPLACE -> replaces++;
          case DELETE -> deletes++;
          case UPDATE -> updates++;
        }
        if (record.operation() != Operation.DELETE && record.document() == null) {
          if (record.operation() == Operation.UPDATE) {
            updatesWithoutDocument++;
            skip[i] = true; // no post-image: nothing to apply (see the class comment)
            continue;
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
        keyTexts[i] = key;
        boolean newInBatch = keys.addIfAbsent(key);
        if (record.operation() != Operation.DELETE) {
          String doc = JsonbSanitizer.sanitize(record.document());
          docs[i] = doc;
          if (newInBatch) {
            fresh[i] = true;
            if (toCheck != null) {
              toCheck.add(key);
            }
          }
        }
      }
      Set<String> existing =
          toCheck == null || toCheck.isEmpty() ? Set.of() : existingKeys(toCheck);
      for (int i = 0; i < n; i++) {
        if (skip[i]) {
          continue;
        }
        ChangeRecord record = records.get(i);
        String doc = docs[i];
        String raw = doc != null && doc != record.document() ? record.document() : null;
        if (raw != null) {
          sanitized++;
        }
        if (fresh[i] && !existing.contains(keyTexts[i])) {
          direct.startRow(5);
          direct.putText(keyTexts[i]);
          direct.putJsonb(doc);
          direct.putText(raw);
          direct.putText(record.position().data());
          direct.putTimestamptz(record.commitTime());
        } else {
          buffer.startRow(ROW_FIELDS);
          buffer.putBigint(seq++);
          buffer.putText(opCode(record.operation()));
          buffer.putText(keyTexts[i]);
          buffer.putText(doc);
          buffer.putText(raw);
          buffer.putText(record.position().data());
          buffer.putTimestamptz(record.commitTime());
          staged++;
        }
      }
      if (direct.rows() > 0) {
        directRows += direct.rows();
        stream(directCopySql, direct);
      }
      if (buffer.rows() > 0) {
        stream(copySql, buffer);
      }
    }

    private Set<String> existingKeys(List<String> candidates) throws SQLException {
      finishCopy();
      Set<String> found = new HashSet<>();
      try (PreparedStatement ps = connection.prepareStatement(existingSql)) {
        Array array = connection.createArrayOf("text", candidates.toArray());
        ps.setArray(1, array);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            found.add(rs.getString(1));
          }
        }
        array.free();
      }
      return found;
    }


    SinkBatchStats.TableStats merge() throws SQLException {
      long changed = 0;
      if (staged > 0) {
        try (Statement st = connection.createStatement()) {
          // row counts and value statistics, so the planner probes the table's primary key
          // for a small batch instead of scanning a large table
          // (a small sample of the key column is enough, and cheap)
          st.execute("set local default_statistics_target = 10");
          st.execute("analyze " + staging + " (id)");
        }
        if (keys.maybeDuplicates()) {
          try (Statement st = connection.createStatement()) {
            st.executeUpdate(dedupeSql());
          }
        }
        try (Statement st = connection.createStatement();
            ResultSet rs = st.executeQuery(mergeSql())) {
          rs.next();
          changed = rs.getLong(1) + rs.getLong(2);
        }
      }
      changed += directRows;
      return new SinkBatchStats.TableStats(
          table, inserts, updates, replaces, deletes, updatesWithoutDocument, sanitized, bytes,
          changed);
    }

    /**
     * Removes from staging every record that a record of the same key in the batch supersedes
     * (a newer position; for the same position, a later one), so each key keeps one record.
     */
    String dedupeSql() {
      return "delete from "
          + staging
          + " s using "
          + staging
          + " n where n.id = s.id and (n.position > s.position"
          + " or (n.position = s.position and n.seq > s.seq))";
    }

    /**
     * One statement over the staged records (one per key after {@link #dedupeSql}): against
     * the rows as they were before the statement, (hard mode) remove rows that a newer delete
     * names, update rows that a newer record names, and insert keys that have no row. Update and insert touch disjoint keys, so a
     * plain INSERT (cheaper than ON CONFLICT's speculative insertion) is enough. The sink is
     * meant to be its tables' only writer; a row another writer inserts meanwhile makes the
     * batch fail on the primary key (and be retried), never apply wrongly.
     */
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
          .append(" \"_deleted\" = w.op = 'd', \"_synced_at\" = now()")
          .append(" from ")
          .append(w)
          .append(" w where t.\"_id\" = w.id and t.\"_position\" < w.position");
      if (hard) {
        sql.append(" and w.op <> 'd'");
      }
      sql.append(" returning 1), ins as (insert into ")
          .append(t)
          .append(" (\"_id\", \"doc\", \"_raw_doc\", \"_position\", \"_commit_time\",")
          .append(" \"_deleted\", \"_synced_at\")")
          .append(" select w.id, w.doc::jsonb, w.raw_doc, w.position, w.commit_time,")
          .append(" w.op = 'd', now() from ")
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
