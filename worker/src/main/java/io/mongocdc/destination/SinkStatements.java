package io.mongocdc.destination;

import static io.mongocdc.destination.DestinationColumn.COMMIT_TIME;
import static io.mongocdc.destination.DestinationColumn.DELETED;
import static io.mongocdc.destination.DestinationColumn.DOC;
import static io.mongocdc.destination.DestinationColumn.DOC_BEFORE;
import static io.mongocdc.destination.DestinationColumn.DRIFT;
import static io.mongocdc.destination.DestinationColumn.ID;
import static io.mongocdc.destination.DestinationColumn.OPERATION;
import static io.mongocdc.destination.DestinationColumn.POSITION;
import static io.mongocdc.destination.DestinationColumn.RAW_DOC;
import static io.mongocdc.destination.DestinationColumn.SYNCED_AT;
import static io.mongocdc.destination.DestinationColumn.UPDATE_DESCRIPTION;

import io.mongocdc.decode.ColumnProjection;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The SQL text a {@link PostgresRecordSink} sends for one mirror table and, when its collection
 * keeps a change history, for that table's history table: plain strings, built once per table and
 * sink, kept apart from the code that runs them so that they can be read and tested as text.
 *
 * <p>Records reach the server through temporary staging tables ({@code ON COMMIT DELETE ROWS}, so
 * a pooled session keeps the table but never its rows). Their columns are positional ({@code c0},
 * {@code c1}, ... for typed columns) so no user-chosen name appears there, and the typed columns'
 * layout is in the staging table's name, since a pooled session may keep a staging table of another
 * layout from an earlier sink.
 *
 * <p>The rows a sink encodes for a COPY follow the column lists here: staging rows are {@code op,
 * id, doc, raw_doc, position, commit_time}, then the typed values and their drift; rows copied
 * straight into the table are {@link #copyIntoTable()}'s columns in that order.
 */
final class SinkStatements {

  /** Sets the session's {@code temp_buffers} to the parameter (given twice) unless it already is that. */
  static final String SET_TEMP_BUFFERS = "select set_config('temp_buffers', ?, false)"
      + " where pg_size_bytes(current_setting('temp_buffers')) <> pg_size_bytes(?)";

  /** Sets the transaction's {@code work_mem} to the parameter. */
  static final String SET_WORK_MEM = "select set_config('work_mem', ?, true)";

  /** Sets the transaction's {@code lock_timeout} to the parameter. */
  static final String SET_LOCK_TIMEOUT = "select set_config('lock_timeout', ?, true)";

  private final DestinationTable table;
  private final DestinationTable history;
  private final String staging;
  private final String historyStaging;
  private final String createStaging;
  private final String copyIntoStaging;
  private final String copyIntoTable;
  private final String probe;
  private final String merge;

  /**
   * @param index the table's number within the sink, which names its staging tables
   * @param columns the table's typed columns, in order; empty when it has none
   * @param keepsHistory whether the table's collection keeps a change history
   */
  SinkStatements(DestinationTable table, int index, List<ColumnProjection> columns, DeleteMode deleteMode,
      boolean keepsHistory) {
    this.table = table;
    this.history = keepsHistory ? PostgresDestination.historyOf(table) : null;
    String layout = columns.isEmpty() ? "" : "_" + Integer.toHexString(columns.hashCode());
    this.staging = temporary("mongo_cdc_stage_" + index + layout);
    this.historyStaging = keepsHistory ? temporary("mongo_cdc_history_stage_" + index) : null;
    List<String> typed = typedNames(columns);
    String typedList = typed.stream().map(name -> ", " + name).collect(Collectors.joining());
    this.createStaging = "create temporary table if not exists " + staging
        + " (op text not null, id text collate \"C\" not null,"
        + " doc text, raw_doc text, position text collate \"C\" not null,"
        + " commit_time timestamptz not null" + stagedTypedDefinitions(columns) + ") on commit delete rows";
    this.copyIntoStaging = "copy " + staging + " (op, id, doc, raw_doc, position, commit_time"
        + stagedTyped(columns, "") + ") from stdin (format binary)";
    this.copyIntoTable = "copy " + table.qualifiedName() + " (" + columnList(ID, DOC, RAW_DOC, POSITION, COMMIT_TIME)
        + typedList + ") from stdin (format binary)";
    this.probe = "select not exists (select 1 from " + table.qualifiedName() + "), exists (select 1 from pg_class c"
        + " join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and c.relname = ?)";
    this.merge = merge(table.qualifiedName(), staging, columns, typed, deleteMode == DeleteMode.HARD);
  }

  DestinationTable table() {
    return table;
  }

  /** The history table, or null when the collection keeps no history. */
  DestinationTable history() {
    return history;
  }

  /** Creates the staging table if the session has none yet. */
  String createStaging() {
    return createStaging;
  }

  /** Binary COPY of staged records into the staging table. */
  String copyIntoStaging() {
    return copyIntoStaging;
  }

  /** Binary COPY of rows straight into the table: {@code _id, doc, _raw_doc, _position, _commit_time}, typed columns, {@code _drift}. */
  String copyIntoTable() {
    return copyIntoTable;
  }

  /**
   * One round trip: whether the table is empty, and whether the table named by the parameters
   * (schema, name; an empty name for none) exists.
   */
  String probe() {
    return probe;
  }

  /**
   * One statement over the staged records (one per key): against the rows as they were before
   * the statement, (hard deletes) remove rows that a newer delete names, update rows that a newer
   * record names, and insert keys that have no row; its one result row counts the rows removed or
   * updated, then the rows inserted. Update and insert touch disjoint keys as the statement sees
   * them; a row another writer (a snapshot copy beside the batches) inserts and commits meanwhile
   * meets the insert's conflict clause, which applies the record over it by position as the update
   * would (a plain INSERT failed the batch on the primary key, again and again while a copy ran).
   * Rows are locked in the order of the join, by key.
   */
  String merge() {
    return merge;
  }

  /**
   * The merge in one round trip: analyze the staging table first (so the planner probes the
   * table's primary key for a small batch instead of scanning a large table), and empty it after.
   */
  String analyzeMergeAndEmpty() {
    return "set local default_statistics_target = 10; analyze " + staging + " (id); " + merge + "; truncate "
        + staging;
  }

  /** Creates the history staging table if the session has none yet. */
  String createHistoryStaging() {
    requireHistory();
    return "create temporary table if not exists " + historyStaging
        + " (op text not null, id text collate \"C\" not null, position text collate \"C\" not null,"
        + " commit_time timestamptz not null, doc text, raw_doc text, doc_before text, update_description text)"
        + " on commit delete rows";
  }

  /** Binary COPY of history rows into the history staging table. */
  String copyIntoHistoryStaging() {
    requireHistory();
    return "copy " + historyStaging
        + " (op, id, position, commit_time, doc, raw_doc, doc_before, update_description) from stdin (format binary)";
  }

  /**
   * Moves the staged history rows into the history table, skipping events it already holds (its
   * primary key is position and key), and empties the history staging table.
   */
  String appendHistory() {
    requireHistory();
    return "insert into " + history.qualifiedName()
        + " (" + columnList(POSITION, ID, OPERATION, COMMIT_TIME, DOC, RAW_DOC, DOC_BEFORE, UPDATE_DESCRIPTION) + ")"
        + " select position, id, op, commit_time, doc::jsonb, raw_doc, doc_before::jsonb, update_description::jsonb"
        + " from " + historyStaging + " on conflict (" + columnList(POSITION, ID) + ") do nothing; truncate "
        + historyStaging;
  }

  private void requireHistory() {
    if (history == null) {
      throw new IllegalStateException(table.qualifiedName() + " keeps no history");
    }
  }

  private static String merge(String t, String w, List<ColumnProjection> columns, List<String> typed, boolean hard) {
    String onlyUpserts = hard ? " and w.op <> 'd'" : "";
    StringBuilder sql = new StringBuilder(1024).append("with ");
    if (hard) {
      sql.append("del as (delete from ").append(t).append(" t using ").append(w).append(" w where w.op = 'd' and t.")
          .append(ID.quoted()).append(" = w.id and t.").append(POSITION.quoted()).append(" < w.position returning 1), ");
    }
    sql.append("upd as (update ").append(t).append(" t set ")
        .append(keptOnDelete(DOC.quoted(), "w.doc::jsonb")).append(", ")
        .append(keptOnDelete(RAW_DOC.quoted(), "w.raw_doc")).append(", ")
        .append(POSITION.quoted()).append(" = w.position, ").append(COMMIT_TIME.quoted()).append(" = w.commit_time, ")
        .append(DELETED.quoted()).append(" = w.op = 'd', ").append(SYNCED_AT.quoted()).append(" = now()");
    List<String> staged = stagedTypedNames(columns, "w.");
    for (int i = 0; i < typed.size(); i++) {
      sql.append(", ").append(keptOnDelete(typed.get(i), staged.get(i)));
    }
    sql.append(" from ").append(w).append(" w where t.").append(ID.quoted()).append(" = w.id and t.")
        .append(POSITION.quoted()).append(" < w.position").append(onlyUpserts)
        .append(" returning 1), ins as (insert into ").append(t).append(" as t")
        .append(" (").append(columnList(ID, DOC, RAW_DOC, POSITION, COMMIT_TIME, DELETED, SYNCED_AT))
        .append(typed.stream().map(name -> ", " + name).collect(Collectors.joining())).append(")")
        .append(" select w.id, w.doc::jsonb, w.raw_doc, w.position, w.commit_time, w.op = 'd', now()")
        .append(stagedTyped(columns, "w.")).append(" from ").append(w)
        .append(" w where not exists (select 1 from ").append(t).append(" e where e.").append(ID.quoted())
        .append(" = w.id)").append(onlyUpserts)
        .append(" on conflict (").append(ID.quoted()).append(") do update set ")
        .append(keptOnConflict(DOC.quoted())).append(", ").append(keptOnConflict(RAW_DOC.quoted())).append(", ")
        .append(POSITION.quoted()).append(" = excluded.").append(POSITION.quoted()).append(", ")
        .append(COMMIT_TIME.quoted()).append(" = excluded.").append(COMMIT_TIME.quoted()).append(", ")
        .append(DELETED.quoted()).append(" = excluded.").append(DELETED.quoted()).append(", ")
        .append(SYNCED_AT.quoted()).append(" = now()")
        .append(typed.stream().map(name -> ", " + keptOnConflict(name)).collect(Collectors.joining()))
        .append(" where t.").append(POSITION.quoted()).append(" < excluded.").append(POSITION.quoted())
        .append(" returning 1) select ").append(hard ? "(select count(*) from del)" : "0")
        .append(" + (select count(*) from upd), (select count(*) from ins)");
    return sql.toString();
  }

  /** {@code "c" = case when w.op = 'd' then t."c" else <staged> end}: a delete keeps the row's last value. */
  /**
   * The insert's conflict update of {@code column}: a row another writer inserted after this
   * statement began (a snapshot copy beside the batches) takes the record as the update would.
   */
  private static String keptOnConflict(String column) {
    return column + " = case when excluded." + DELETED.quoted() + " then t." + column + " else excluded." + column
        + " end";
  }

  private static String keptOnDelete(String column, String staged) {
    return column + " = case when w.op = 'd' then t." + column + " else " + staged + " end";
  }

  /** The typed columns' quoted names, then {@code "_drift"}; empty without typed columns. */
  private static List<String> typedNames(List<ColumnProjection> columns) {
    List<String> names = new ArrayList<>();
    columns.forEach(c -> names.add(TableNaming.quote(c.name())));
    if (!columns.isEmpty()) {
      names.add(DRIFT.quoted());
    }
    return names;
  }

  /** The staging table's typed columns, {@code c0, c1, ..., drift}, each after {@code prefix}; empty without typed columns. */
  private static List<String> stagedTypedNames(List<ColumnProjection> columns, String prefix) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      names.add(prefix + "c" + i);
    }
    if (!columns.isEmpty()) {
      names.add(prefix + "drift");
    }
    return names;
  }

  /** {@code , c0, c1, drift} with each name after {@code prefix}; empty without typed columns. */
  private static String stagedTyped(List<ColumnProjection> columns, String prefix) {
    return stagedTypedNames(columns, prefix).stream().map(name -> ", " + name).collect(Collectors.joining());
  }

  private static String stagedTypedDefinitions(List<ColumnProjection> columns) {
    StringBuilder definitions = new StringBuilder();
    for (int i = 0; i < columns.size(); i++) {
      definitions.append(", c").append(i).append(' ').append(columns.get(i).type().sql());
    }
    return columns.isEmpty() ? "" : definitions.append(", drift jsonb").toString();
  }

  private static String columnList(DestinationColumn... columns) {
    StringBuilder list = new StringBuilder();
    for (DestinationColumn column : columns) {
      list.append(list.isEmpty() ? "" : ", ").append(column.quoted());
    }
    return list.toString();
  }

  private static String temporary(String name) {
    return "pg_temp." + TableNaming.quote(name);
  }
}
