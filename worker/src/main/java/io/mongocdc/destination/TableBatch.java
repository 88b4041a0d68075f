package io.mongocdc.destination;

import io.mongocdc.decode.JsonbSanitizer;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjection;
import io.mongocdc.decode.Operation;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One mirror table's part of a sink's transaction: the records copied straight in, the records
 * waiting for the next merge (each key's newest only), the history rows, and the counts the commit
 * reports. Lives as long as the sink; {@link #startBatch} and {@link #endBatch} bracket each
 * transaction that writes the table. Runs its statements ({@link SinkStatements}) on the sink's
 * connection, from the sink's writing thread.
 */
final class TableBatch {

  /** Fields of a staged row: op, id, doc, raw_doc, position, commit_time (then typed columns). */
  private static final int STAGED_FIELDS = 6;
  /** Fields of a row copied straight into the table: _id, doc, _raw_doc, _position, _commit_time (then typed columns). */
  private static final int DIRECT_FIELDS = 5;
  /** Keys per table and transaction tracked for the direct COPY into an empty table (8 to 16 bytes each). */
  private static final int MAX_TRACKED_KEYS = 1 << 20;

  private final SinkStatements sql;
  private final SinkSession session;
  /** The table's typed columns, in order; empty when it has none. */
  private final List<ColumnProjection> columns;
  /** Where every record also goes, or null when the table keeps no history. */
  private final HistoryAppender history;
  private final BinaryCopyBuffer staged = new BinaryCopyBuffer();
  private final BinaryCopyBuffer direct = new BinaryCopyBuffer();
  private final KeyHashSet keys = new KeyHashSet(MAX_TRACKED_KEYS);
  /** Per key only its newest record: what the next merge applies. */
  private final Map<String, ChangeRecord> pending = new LinkedHashMap<>();
  /** Rows written this batch whose typed column drifted, by column. */
  private final Map<String, Long> drift = new LinkedHashMap<>();
  private boolean stagingCreated;
  private boolean columnsReady;
  private boolean historyReady;
  private boolean inBatch;
  private boolean emptyAtStart;
  private long pendingBytes;
  private long inserts;
  private long updates;
  private long replaces;
  private long deletes;
  private long updatesWithoutDocument;
  private long sanitized;
  private long bytes;
  private long changed;

  TableBatch(SinkStatements sql, List<ColumnProjection> columns, SinkSession session) {
    this.sql = sql;
    this.columns = columns;
    this.session = session;
    this.history = sql.history() == null ? null : new HistoryAppender(sql, session.connection(), session.copy());
  }

  DestinationTable table() {
    return sql.table();
  }

  /** Whether the open transaction has written this table. */
  boolean inBatch() {
    return inBatch;
  }

  /** Source bytes of the records waiting for the next merge. */
  long pendingBytes() {
    return pendingBytes;
  }

  /**
   * Readies the table for a transaction that writes it: the staging tables, typed columns and
   * history table the table needs, and whether it is empty.
   */
  void startBatch() throws SQLException {
    session.copy().finish();
    try (Statement st = session.connection().createStatement()) {
      if (!stagingCreated) {
        // A pooled session may already have it (it outlives our transaction, its rows do not).
        st.execute(sql.createStaging());
        stagingCreated = true;
      }
      if (history != null) {
        history.createStaging(st);
      }
    }
    if (!columnsReady && !columns.isEmpty()) {
      // Declared at create, added by an edit, or a collection met on the way: the table gets
      // the columns before its first row of this sink. Checked again under the DDL lock, so
      // lanes meeting the table at once add them once and never wait for each other's rows.
      if (!TypedColumnTable.missing(session.connection(), table(), columns).isEmpty()) {
        session.ddl(ddl -> TypedColumnTable.addMissing(ddl, table(), columns));
      }
    }
    columnsReady = true;
    try (PreparedStatement ps = session.connection().prepareStatement(sql.probe())) {
      ps.setString(1, table().schema());
      ps.setString(2, history == null || historyReady ? "" : history.table().name());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        emptyAtStart = rs.getBoolean(1) || session.newKeysStraightIn();
        if (history != null && !historyReady && !rs.getBoolean(2)) {
          // History turned on for a table that has none yet (an edit, or a collection met on the way).
          session.claims().claim(history.table());
          session.ddl(ddl -> PostgresDestination.createHistoryTable(ddl, history.table()));
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
    staged.trim(CopyStream.KEEP_BUFFER_BYTES);
    direct.trim(CopyStream.KEEP_BUFFER_BYTES);
    if (history != null) {
      history.endBatch();
    }
  }

  /**
   * Takes one chunk's records of this table. In a table that was empty when the batch began,
   * a key's first record (unless a delete) is copied straight into the table: no row can be
   * newer, and this is the cheapest way in. A sink that copies new keys straight in ({@link
   * PostgresSinkBuilder#newKeysStraightIn}) does so in any table: a key with a row fails the COPY
   * on the primary key. Every other record waits in {@link #pending},
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
          continue; // no post-image: nothing to apply (see PostgresRecordSink)
        }
        throw new IllegalArgumentException(record.operation().operationType() + " record without a document for key "
            + record.key() + " in " + record.source() + " at " + record.position());
      }
      String key = keyText(record.key());
      boolean fresh = emptyAtStart && keys.addIfAbsent(key);
      if (fresh && record.operation() != Operation.DELETE) {
        String doc = sanitize(record);
        direct.startRow(DIRECT_FIELDS + TypedColumnCopy.fields(columns));
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
          pendingBytes += record.sourceBytes() - (waiting == null ? 0 : waiting.sourceBytes());
        }
      }
    }
    if (direct.rows() > 0) {
      changed += direct.rows();
      session.copy().send(sql.copyIntoTable(), direct);
    }
    if (pending.size() >= session.options().flushRecords()) {
      flush();
    } else if (history != null) {
      history.afterChunk(session.options().flushRecords());
    }
  }

  /**
   * Merges the pending records into the table, inside the open transaction: the history rows
   * staged so far first, then one binary COPY into staging and one round trip that analyzes,
   * merges and empties it ({@link SinkStatements#analyzeMergeAndEmpty()}). Each key is in staging
   * once, so no de-duplication is needed, and successive merges of one key happen in source order.
   */
  void flush() throws SQLException {
    if (history != null) {
      history.append();
    }
    if (pending.isEmpty()) {
      return;
    }
    String copySql = sql.copyIntoStaging();
    for (Map.Entry<String, ChangeRecord> entry : pending.entrySet()) {
      ChangeRecord record = entry.getValue();
      boolean delete = record.operation() == Operation.DELETE;
      String doc = delete ? null : sanitize(record);
      staged.startRow(STAGED_FIELDS + TypedColumnCopy.fields(columns));
      staged.putText(opCode(record.operation()));
      staged.putText(entry.getKey());
      staged.putText(doc);
      staged.putText(raw(record, doc));
      staged.putText(record.position().data());
      staged.putTimestamptz(record.commitTime());
      TypedColumnCopy.put(staged, columns, delete ? null : record.typed());
      if (!delete) {
        countDrift(record);
      }
      if (staged.size() >= CopyStream.SEND_BUFFER_BYTES) {
        session.copy().send(copySql, staged);
      }
    }
    if (staged.rows() > 0) {
      session.copy().send(copySql, staged);
    }
    session.copy().finish();
    changed += merge();
    pendingBytes = 0;
    pending.clear();
  }

  /** Runs the merge round trip; @return the rows it removed, updated or inserted */
  private long merge() throws SQLException {
    try (Statement st = session.connection().createStatement()) {
      boolean isResult = st.execute(sql.analyzeMergeAndEmpty());
      while (!isResult) {
        if (st.getUpdateCount() < 0) {
          throw new SQLException("the merge into " + table().qualifiedName() + " returned no counts");
        }
        isResult = st.getMoreResults();
      }
      long rows;
      try (ResultSet rs = st.getResultSet()) {
        rs.next();
        rows = rs.getLong(1) + rs.getLong(2);
      }
      while (st.getMoreResults() || st.getUpdateCount() >= 0) {
        // drain the results of the statements after the merge
      }
      return rows;
    }
  }

  /** Merges what still waits; @return what the transaction wrote to the table */
  SinkBatchStats.TableStats finish() throws SQLException {
    flush();
    return new SinkBatchStats.TableStats(table(), inserts, updates, replaces, deletes, updatesWithoutDocument,
        sanitized, bytes, changed, history == null ? 0 : history.appended(), Map.copyOf(drift));
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
  private static String raw(ChangeRecord record, String doc) {
    return doc != null && doc != record.document() ? record.document() : null;
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
}
