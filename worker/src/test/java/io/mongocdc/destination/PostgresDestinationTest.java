package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.decode.Namespace;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Table set-up on a destination whose settings make hand-quoted literals unsafe. */
class PostgresDestinationTest {

  private static final DataSource DATABASE = EmbeddedPostgresSupport.newDatabase("setup");

  @Test
  void aCollectionNameThatWouldEndAQuotedLiteralIsOnlyEverText() throws Exception {
    Namespace hostile = new Namespace("app", "x\\'; create table pwned(owned text); --");
    try (Connection connection = DATABASE.getConnection(); Statement st = connection.createStatement()) {
      // Backslashes escape quotes in plain literals here: doubling quotes alone is not enough.
      st.execute("set standard_conforming_strings = off");
      DestinationTable table = PostgresDestination.setUp(connection, "hostile", List.of(hostile)).get(0);

      assertEquals(hostile, PostgresDestination.mirroredNamespace(connection, table));
      try (ResultSet rs = st.executeQuery(
          "select count(*) from pg_class where relname = 'pwned'")) {
        rs.next();
        assertEquals(0, rs.getInt(1), "the name ran as SQL");
      }
      assertEquals(List.of(table.name()), PostgresDestination.mirroredTables(connection, "hostile"));
    }
  }
}
