package io.mongocdc.devtools;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The figures the dev run reads from the catalog and the destination: one row, one number. */
final class SqlNumber {

  private SqlNumber() {}

  /** The number in the first column of the one row {@code sql} gives, its parameters bound as text. */
  static long of(Connection connection, String sql, String... parameters) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setString(i + 1, parameters[i]);
      }
      try (ResultSet row = statement.executeQuery()) {
        row.next();
        return row.getLong(1);
      }
    }
  }
}
