package io.mongocdc.destination;

import io.mongocdc.decode.JsonbSanitizer;
import io.mongocdc.decode.ChangeRecord;

/**
 * The rows one sink appends to one history table ({@code <table>_history}) in the open
 * transaction: every record of the state table, in source order, not collapsed.
 *
 * <p>Rows are encoded for a binary COPY into a temporary staging table and moved into the history
 * table by one {@code insert ... on conflict do nothing}: the history table is unique on the event's
 * position and key (an event has one key; the documents a snapshot copies share the snapshot's
 * position), so a replayed event (a retry, an older batch) is never appended twice, and the rows
 * of one event within one statement collapse to one. It runs in the same
 * transaction as the state table's merge, so history and state commit or roll back together.
 */
final class HistoryAppender {

  private static final int STAGED_FIELDS = 8;

  final DestinationTable table;
  final String staging;
  final String copySql;
  final BinaryCopyBuffer buffer = new BinaryCopyBuffer();
  boolean stagingCreated;
  /** Rows copied into staging and not yet moved into the history table. */
  long staged;
  /** Rows this transaction appended (replays not counted). */
  long appended;
  long sanitized;

  HistoryAppender(DestinationTable table, String staging) {
    this.table = table;
    this.staging = "pg_temp." + TableNaming.quote(staging);
    this.copySql = "copy " + this.staging
        + " (op, id, position, commit_time, doc, raw_doc, doc_before, update_description) from stdin (format binary)";
  }

  String createStagingSql() {
    return "create temporary table if not exists " + staging
        + " (op text not null, id text collate \"C\" not null, position text collate \"C\" not null,"
        + " commit_time timestamptz not null, doc text, raw_doc text, doc_before text, update_description text)"
        + " on commit delete rows";
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

  private String sanitize(String json) {
    if (json == null) {
      return null;
    }
    String clean = JsonbSanitizer.sanitize(json);
    if (clean != json) {
      sanitized++;
    }
    return clean;
  }

  /** Moves the staged rows into the history table, skipping positions it already holds, and empties staging. */
  String appendSql() {
    return "insert into " + table.qualifiedName()
        + " (\"_position\", \"_id\", \"_operation\", \"_commit_time\", \"doc\", \"_raw_doc\", \"doc_before\","
        + " \"updateDescription\")"
        + " select position, id, op, commit_time, doc::jsonb, raw_doc, doc_before::jsonb, update_description::jsonb"
        + " from " + staging + " on conflict (\"_position\", \"_id\") do nothing; truncate " + staging;
  }

  void startBatch() {
    staged = 0;
    appended = 0;
    sanitized = 0;
  }
}
