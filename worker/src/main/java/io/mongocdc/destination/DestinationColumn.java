package io.mongocdc.destination;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The columns mongo-cdc gives its destination tables (a mirror table and its history table): the
 * one place their names and types are spelled. SQL takes the names through {@link #quoted()};
 * the layouts themselves are {@link #STATE_TABLE} and {@link #HISTORY_TABLE}.
 */
public enum DestinationColumn {
  /** The document key as {@code KeyRenderer} text: the mirror table's primary key. */
  ID("_id", "text collate \"C\" not null"),
  /** The document (jsonb); null in a tombstone and in a delete's history row. */
  DOC("doc", "jsonb"),
  /** The exact JSON when {@code doc} had to be altered for jsonb ({@link JsonbSanitizer}). */
  RAW_DOC("_raw_doc", "text"),
  /** The resume token of the event that wrote the row: a write with an older one never changes it. */
  POSITION("_position", "text collate \"C\" not null"),
  /** That event's commit (wall) time. */
  COMMIT_TIME("_commit_time", "timestamptz not null"),
  /** The soft-delete flag. */
  DELETED("_deleted", "boolean not null default false"),
  /** When the row was last written here. */
  SYNCED_AT("_synced_at", "timestamptz not null default now()"),
  /** Which typed columns of the row did not convert, and why; present only beside typed columns. */
  DRIFT("_drift", "jsonb"),
  /** History: the event's operation type (insert, update, replace or delete). */
  OPERATION("_operation", "text not null"),
  /** History: the pre-image, when the stream carried one. */
  DOC_BEFORE("doc_before", "jsonb"),
  /** History: an update's updated and removed fields and truncated arrays. */
  UPDATE_DESCRIPTION("updateDescription", "jsonb");

  /** A mirror table's own columns, in table order; its typed columns and {@link #DRIFT} follow. */
  public static final List<DestinationColumn> STATE_TABLE =
      List.of(ID, DOC, RAW_DOC, POSITION, COMMIT_TIME, DELETED, SYNCED_AT);

  /** A history table's columns, in table order. */
  public static final List<DestinationColumn> HISTORY_TABLE =
      List.of(POSITION, ID, OPERATION, COMMIT_TIME, DOC, RAW_DOC, DOC_BEFORE, UPDATE_DESCRIPTION, SYNCED_AT);

  private final String columnName;
  private final String quoted;
  private final String type;

  DestinationColumn(String columnName, String type) {
    this.columnName = columnName;
    this.quoted = TableNaming.quote(columnName);
    this.type = type;
  }

  /** The name as the table has it (unquoted). */
  public String columnName() {
    return columnName;
  }

  /** The name as SQL spells it, quoted by {@link TableNaming#quote}. */
  public String quoted() {
    return quoted;
  }

  /** The column's definition in {@code CREATE TABLE} and {@code ADD COLUMN}: quoted name, type, constraints. */
  public String definition() {
    return quoted + " " + type;
  }

  /** The definitions of {@code columns}, comma-separated, for a {@code CREATE TABLE}. */
  static String definitions(List<DestinationColumn> columns) {
    return columns.stream().map(DestinationColumn::definition).collect(Collectors.joining(", "));
  }

  /** The names no typed column of a mirror table may take: its own columns and {@link #DRIFT}. */
  public static Set<String> reservedInStateTable() {
    return Stream.concat(STATE_TABLE.stream(), Stream.of(DRIFT)).map(DestinationColumn::columnName)
        .collect(Collectors.toUnmodifiableSet());
  }
}
