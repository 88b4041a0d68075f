package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.Namespace;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Issue 36, finding 9: typed-column index names that collide across tables. */
class TypedColumnIndexesTest {

  private static DataSource dataSource;

  private final DestinationTable orders = new DestinationTable(new Namespace("app", "orders"), "ix", "orders");
  private final DestinationTable orders2 = new DestinationTable(new Namespace("app", "orders_2"), "ix", "orders_2");

  @BeforeAll
  static void database() {
    dataSource = EmbeddedPostgresSupport.newDatabase("indexes");
  }

  @Test
  void indexesOfTwoTablesWhosePreferredNamesCollideAreBothBuiltEachOnItsTable() throws SQLException {
    try (Connection connection = dataSource.getConnection(); Statement st = connection.createStatement()) {
      st.execute("create schema ix");
      st.execute("create table ix.orders (_id text primary key, \"2_x\" text)");
      st.execute("create table ix.orders_2 (_id text primary key, x text)");
      assertEquals(TypedColumnIndexes.preferredName(orders, "2_x"), TypedColumnIndexes.preferredName(orders2, "x"));

      assertTrue(TypedColumnIndexes.create(connection, orders, "2_x"));
      assertTrue(TypedColumnIndexes.create(connection, orders2, "x"), "the second index is built too");
      assertEquals(List.of("orders:2_x", "orders_2:x"), indexedColumns(connection));

      // Built once: found again by table and column, whatever name each got.
      assertFalse(TypedColumnIndexes.create(connection, orders, "2_x"));
      assertFalse(TypedColumnIndexes.create(connection, orders2, "x"));

      // An invalid index of one table is rebuilt without touching the other table's.
      String invalid = name(connection, "orders_2");
      st.execute("update pg_index set indisvalid = false where indexrelid = 'ix.\"" + invalid + "\"'::regclass");
      assertTrue(TypedColumnIndexes.create(connection, orders2, "x"));
      assertEquals(List.of("orders:2_x", "orders_2:x"), indexedColumns(connection));
      assertFalse(TypedColumnIndexes.create(connection, orders, "2_x"));
    }
  }

  /** Every valid index of schema ix as table:column, sorted. */
  private static List<String> indexedColumns(Connection connection) throws SQLException {
    List<String> indexes = new ArrayList<>();
    try (Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery("select t.relname, a.attname from pg_index i"
            + " join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = t.relnamespace"
            + " join pg_attribute a on a.attrelid = t.oid and a.attnum = i.indkey[0]"
            + " where n.nspname = 'ix' and not i.indisprimary and i.indisvalid order by 1, 2")) {
      while (rs.next()) {
        indexes.add(rs.getString(1) + ":" + rs.getString(2));
      }
    }
    return indexes;
  }

  private static String name(Connection connection, String table) throws SQLException {
    try (Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery("select c.relname from pg_index i join pg_class c on c.oid = i.indexrelid"
            + " join pg_class t on t.oid = i.indrelid where t.relname = '" + table + "' and not i.indisprimary")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
