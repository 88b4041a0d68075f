package io.mongocdc.destination;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;

/**
 * The index of a typed column: {@code create index concurrently}, outside any transaction, so the
 * table stays writable while it is built. A build that was interrupted leaves an invalid index,
 * which is dropped (concurrently) and built again.
 *
 * <p>An index is found by its table and column, never by its name alone: index names are unique
 * per schema, and {@code <table>_<column>_idx} is ambiguous ({@code orders} + {@code 2_x} and
 * {@code orders_2} + {@code x}). A new index takes that name unless another relation of the
 * schema holds it; then a hash of table and column makes it unique.
 */
final class TypedColumnIndexes {

  private static final int NAME_HASH_HEX_DIGITS = 8;

  private TypedColumnIndexes() {}

  /** The name an index of {@code column} gets when no other relation holds it: {@code <table>_<column>_idx}. */
  static String preferredName(DestinationTable table, String column) {
    return TableNaming.shorten(table.name() + "_" + column + "_idx");
  }

  /** The name an index gets when another relation holds the preferred one. */
  static String uniqueName(DestinationTable table, String column) {
    String hash = HexFormat.of().formatHex(TableNaming.sha256((table.name() + "\0" + column)
        .getBytes(StandardCharsets.UTF_8))).substring(0, NAME_HASH_HEX_DIGITS);
    return TableNaming.shorten(table.name() + "_" + column + "_" + hash + "_idx");
  }

  /** Creates the index if missing (or invalid), on an auto-commit connection. @return true if it built one */
  static boolean create(Connection connection, DestinationTable table, String column) throws SQLException {
    ExistingIndex existing = find(connection, table, column);
    if (existing != null && existing.valid()) {
      return false;
    }
    try (Statement st = connection.createStatement()) {
      if (existing != null) {
        st.execute("drop index concurrently if exists " + TableNaming.qualified(table.schema(), existing.name()));
      }
      String name = relationExists(connection, table.schema(), preferredName(table, column))
          ? uniqueName(table, column) : preferredName(table, column);
      st.execute("create index concurrently " + TableNaming.quote(name) + " on " + table.qualifiedName() + " ("
          + TableNaming.quote(column) + ")");
    }
    return true;
  }

  private record ExistingIndex(String name, boolean valid) {}

  /** A plain index on exactly {@code column} of {@code table}, whatever its name; null if none. */
  private static ExistingIndex find(Connection connection, DestinationTable table, String column)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(
        "select c.relname, i.indisvalid from pg_index i"
            + " join pg_class c on c.oid = i.indexrelid"
            + " join pg_class t on t.oid = i.indrelid"
            + " join pg_namespace n on n.oid = t.relnamespace"
            + " join pg_attribute a on a.attrelid = t.oid and a.attnum = i.indkey[0]"
            + " where n.nspname = ? and t.relname = ? and a.attname = ?"
            + " and i.indnatts = 1 and i.indexprs is null and i.indpred is null"
            + " order by i.indisvalid desc, c.relname limit 1")) {
      ps.setString(1, table.schema());
      ps.setString(2, table.name());
      ps.setString(3, column);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? new ExistingIndex(rs.getString(1), rs.getBoolean(2)) : null;
      }
    }
  }

  private static boolean relationExists(Connection connection, String schema, String name) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(
        "select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and c.relname = ?")) {
      ps.setString(1, schema);
      ps.setString(2, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }
}
