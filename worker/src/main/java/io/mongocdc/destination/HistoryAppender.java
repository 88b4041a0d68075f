package io.mongocdc.destination;

import io.mongocdc.decode.JsonbSanitizer;
import io.mongocdc.decode.ChangeRecord;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Appends every record of one mirror table, in source order and not collapsed, to its history
 * table ({@code <table>_history}) in the sink's open transaction.
 *
 * <p>Rows are encoded for a binary COPY into a temporary staging table and moved into the history
 * table by one {@code insert ... on conflict do nothing} ({@link SinkStatements#appendHistory()}):
 * the history table is unique on the event's position and key (an event has one key; the documents
 * a snapshot copies share the snapshot's position), so a replayed event (a retry, an older batch) is
 * never appended twice, and the rows of one event within one statement collapse to one. It runs in
 * the same transaction as the state table's merge, so history and state commit or roll back
 * together.
 */
final class HistoryAppender {

  private static final int STAGED_FIELDS = 8;

  private final SinkStatements sql;
  private final String copySql;
  private final Connection connection;
  private final CopyStream copy;
  private final BinaryCopyBuffer buffer = new BinaryCopyBuffer();
  private boolean stagingCreated;
  /** Rows copied into staging and not yet moved into the history table. */
  private long staged;
  /** Rows this transaction appended (replays not counted). */
  private long appended;

  HistoryAppender(SinkStatements sql, Connection connection, CopyStream copy) {
    this.sql = sql;
    this.copySql = sql.copyIntoHistoryStaging();
    this.connection = connection;
    this.copy = copy;
  }

  DestinationTable table() {
    return sql.history();
  }

  /** Creates the staging table on the first batch (a pooled session may have it already). */
  void createStaging(Statement statement) throws SQLException {
    if (!stagingCreated) {
      statement.execute(sql.createHistoryStaging());
      stagingCreated = true;
    }
  }

  void startBatch() {
    staged = 0;
    appended = 0;
  }

  /** Encodes one record (any operation, with or without a document) under its key text. */
  void add(ChangeRecord record, String key) {
    String doc = sanitize(record.document());
    buffer.startRow(STAGED_FIELDS);
    buffer.putText(record.operation().operationType());
    buffer.putText(key);
    buffer.putText(record.position().data());
    buffer.putTimestamptz(record.commitTime());
    buffer.putText(doc);
    buffer.putText(doc != null && doc != record.document() ? record.document() : null);
    buffer.putText(sanitize(record.documentBefore()));
    buffer.putText(sanitize(record.updateDescription()));
    staged++;
  }

  /** After a chunk: appends once {@code appendRows} rows are staged, else sends a full buffer on. */
  void afterChunk(int appendRows) throws SQLException {
    if (staged >= appendRows) {
      append();
    } else if (buffer.size() >= CopyStream.SEND_BUFFER_BYTES) {
      copy.send(copySql, buffer);
    }
  }

  /** Moves the rows staged so far into the history table (same transaction). */
  void append() throws SQLException {
    if (staged == 0) {
      return;
    }
    if (buffer.rows() > 0) {
      copy.send(copySql, buffer);
    }
    copy.finish();
    try (Statement st = connection.createStatement()) {
      st.execute(sql.appendHistory());
      appended += st.getUpdateCount();
      while (st.getMoreResults() || st.getUpdateCount() >= 0) {
        // drain the truncate's result
      }
    }
    staged = 0;
  }

  /** Rows this transaction appended so far. */
  long appended() {
    return appended;
  }

  void endBatch() {
    buffer.trim(CopyStream.KEEP_BUFFER_BYTES);
  }

  private static String sanitize(String json) {
    return json == null ? null : JsonbSanitizer.sanitize(json);
  }
}
