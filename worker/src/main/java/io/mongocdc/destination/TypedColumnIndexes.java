package io.mongocdc.destination;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The index of a typed column: {@code create index concurrently}, outside any transaction, so the
 * table stays writable while it is built. A build that was interrupted leaves an invalid index,
 * which is dropped (concurrently) and built again.
 */
final class TypedColumnIndexes {

  private TypedColumnIndexes() {}

  /** The index's name: {@code <table>_<column>_idx}, shortened like a table name when too long. */
  static String indexName(DestinationTable table, String column) {
    return TableNaming.shorten(table.name() + "_" + column + "_idx");
  }

  /** Creates the index if missing (or invalid), on an auto-commit connection. @return true if it built one */
  static boolean create(Connection connection, DestinationTable table, String column) throws SQLException {
    String name = indexName(table, column);
    Boolean valid = null;
    try (PreparedStatement ps = connection.prepareStatement(
        "select i.indisvalid from pg_index i join pg_class c on c.oid = i.indexrelid"
            + " join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and c.relname = ?")) {
      ps.setString(1, table.schema());
      ps.setString(2, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          valid = rs.getBoolean(1);
        }
      }
    }
    if (Boolean.TRUE.equals(valid)) {
      return false;
    }
    String qualifiedIndex = TableNaming.qualified(table.schema(), name);
    try (Statement st = connection.createStatement()) {
      if (valid != null) {
        st.execute("drop index concurrently if exists " + qualifiedIndex);
      }
      st.execute("create index concurrently if not exists " + TableNaming.quote(name) + " on "
          + table.qualifiedName() + " (" + TableNaming.quote(column) + ")");
    }
    return true;
  }
}
