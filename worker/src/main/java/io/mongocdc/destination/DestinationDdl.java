package io.mongocdc.destination;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * DDL on the destination outside a sink's transaction: on a connection of its own, committed at
 * once, under the one advisory lock every sink and activity takes for DDL, so writers meeting a
 * table at the same time create or alter it once.
 */
final class DestinationDdl {

  /** One step of DDL, in the lock's transaction. */
  interface Step {
    void run(Connection connection) throws SQLException;
  }

  private DestinationDdl() {}

  static void run(DataSource dataSource, String schema, Step step) throws SQLException {
    try (Connection own = dataSource.getConnection()) {
      own.setAutoCommit(false);
      try {
        try (PreparedStatement lock = own.prepareStatement("select pg_advisory_xact_lock(hashtext(?))")) {
          lock.setString(1, "mongo-cdc table ddl");
          lock.executeQuery().close();
        }
        try (Statement st = own.createStatement()) {
          st.execute("create schema if not exists " + TableNaming.quote(schema));
        }
        step.run(own);
        own.commit();
      } catch (SQLException | RuntimeException e) {
        own.rollback();
        throw e;
      }
    }
  }
}
