package io.mongocdc.destination;

import static io.mongocdc.destination.DestinationColumn.DRIFT;

import io.mongocdc.decode.ColumnProjection;
import io.mongocdc.decode.ColumnType;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The typed columns of a destination table in the database: which of the declared ones are
 * missing, and adding them ({@code alter table ... add column if not exists}: metadata only, no
 * rewrite, so online), with the {@code _drift} column beside them.
 */
final class TypedColumnTable {

  /** An ALTER waits at most this long for the table's lock, then fails (and the batch is retried). */
  private static final String LOCK_TIMEOUT = "10s";

  private TypedColumnTable() {}

  /**
   * The declared columns (and {@code _drift}) the table lacks.
   *
   * @throws IllegalStateException if a declared column exists with another type
   */
  static List<String> missing(Connection connection, DestinationTable table, List<ColumnProjection> columns)
      throws SQLException {
    Map<String, String> existing = existing(connection, table);
    List<String> missing = new ArrayList<>();
    for (ColumnProjection column : columns) {
      String type = existing.get(column.name());
      if (type == null) {
        missing.add(column.name());
      } else if (!type.equals(formatted(column.type()))) {
        throw new IllegalStateException("typed column " + TableNaming.quote(column.name()) + " of "
            + table.qualifiedName() + " exists with type " + type + ", not " + column.type().sql()
            + "; remove the column with --remove-column and --drop-column-data, or give it another name");
      }
    }
    if (!columns.isEmpty() && !existing.containsKey(DRIFT.columnName())) {
      missing.add(DRIFT.columnName());
    }
    return missing;
  }

  /** The table's columns and their types, as {@code format_type} names them. */
  private static Map<String, String> existing(Connection connection, DestinationTable table) throws SQLException {
    Map<String, String> existing = new HashMap<>();
    try (PreparedStatement ps = connection.prepareStatement(
        "select a.attname, format_type(a.atttypid, a.atttypmod) from pg_attribute a"
            + " join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace"
            + " where n.nspname = ? and c.relname = ? and a.attnum > 0 and not a.attisdropped")) {
      ps.setString(1, table.schema());
      ps.setString(2, table.name());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          existing.put(rs.getString(1), rs.getString(2));
        }
      }
    }
    return existing;
  }

  /** The type as {@code format_type} names it. */
  private static String formatted(ColumnType type) {
    return type == ColumnType.TIMESTAMPTZ ? "timestamp with time zone" : type.sql();
  }

  /** Adds the missing columns, within the caller's transaction; @return how many it added */
  static int addMissing(Connection connection, DestinationTable table, List<ColumnProjection> columns)
      throws SQLException {
    List<String> missing = missing(connection, table, columns);
    if (missing.isEmpty()) {
      return 0;
    }
    StringBuilder sql = new StringBuilder("alter table ").append(table.qualifiedName());
    String separator = " ";
    for (ColumnProjection column : columns) {
      if (missing.contains(column.name())) {
        sql.append(separator).append("add column if not exists ").append(TableNaming.quote(column.name()))
            .append(' ').append(column.type().sql());
        separator = ", ";
      }
    }
    if (missing.contains(DRIFT.columnName())) {
      sql.append(separator).append("add column if not exists ").append(DRIFT.definition());
    }
    alter(connection, sql);
    return missing.size();
  }

  /** Drops these columns (an operator's explicit {@code dropColumnData}), within the caller's transaction. */
  static void drop(Connection connection, DestinationTable table, List<String> names) throws SQLException {
    if (names.isEmpty()) {
      return;
    }
    StringBuilder sql = new StringBuilder("alter table ").append(table.qualifiedName());
    String separator = " ";
    for (String name : names) {
      sql.append(separator).append("drop column if exists ").append(TableNaming.quote(name));
      separator = ", ";
    }
    alter(connection, sql);
  }

  /**
   * Takes these columns' entries out of the rows' {@code _drift} (NULL once none is left), within
   * the caller's transaction: row locks only, so it runs before the transaction's ALTERs and
   * readers are blocked only for those.
   */
  static void forgetDrift(Connection connection, DestinationTable table, List<String> names) throws SQLException {
    if (names.isEmpty() || !existing(connection, table).containsKey(DRIFT.columnName())) {
      return;
    }
    try (PreparedStatement ps = connection.prepareStatement("update " + table.qualifiedName() + " set "
        + DRIFT.quoted() + " = nullif(" + DRIFT.quoted() + " - ?::text[], '{}'::jsonb) where jsonb_exists_any("
        + DRIFT.quoted() + ", ?::text[])")) {
      Array keys = connection.createArrayOf("text", names.toArray());
      ps.setArray(1, keys);
      ps.setArray(2, keys);
      ps.executeUpdate();
    }
  }

  /** Runs one ALTER TABLE in the caller's transaction, waiting at most {@link #LOCK_TIMEOUT} for the lock. */
  private static void alter(Connection connection, CharSequence sql) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute("set local lock_timeout = '" + LOCK_TIMEOUT + "'");
      st.execute(sql.toString());
    }
  }
}
