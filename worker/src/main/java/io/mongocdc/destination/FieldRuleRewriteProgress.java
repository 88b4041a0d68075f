package io.mongocdc.destination;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Where a mirror's field rule rewrite is, kept in the destination beside the rows it rewrites and
 * written in the transaction that rewrote them: a retried call (the worker crashed after a commit,
 * before the workflow heard of it) goes on after the last row committed, so no row gets the rules
 * twice. One row per mirror, in table {@value #TABLE} of the mirror's destination schema (a name no
 * collection's table can take: those are {@code <db>.<collection>}).
 */
final class FieldRuleRewriteProgress {

  static final String TABLE = "mongo_cdc_field_rule_rewrites";

  /** The last row a rewrite committed: its collection, its stage, and the row's position and key. */
  record At(String collection, String stage, String position, String key) {}

  private final String table;
  private final String mirror;
  private final String rewrite;

  /** @param rewrite the rewrite's id: its progress is read back only by calls of the same rewrite */
  FieldRuleRewriteProgress(String schema, String mirror, String rewrite) {
    this.table = TableNaming.qualified(schema, TABLE);
    this.mirror = mirror;
    this.rewrite = rewrite;
  }

  /** Creates the table if missing, in its own committed transaction on {@code connection}. */
  void ensureTable(Connection connection) throws SQLException {
    try (Statement st = connection.createStatement()) {
      st.execute("create table if not exists " + table + " (mirror text collate \"C\" primary key,"
          + " rewrite text not null, collection text collate \"C\", stage text, after_position text collate \"C\","
          + " after_key text collate \"C\")");
    }
    connection.commit();
  }

  /** Where this rewrite last committed; null when it has committed nothing yet. */
  At committed(Connection connection) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement("select collection, stage, after_position, after_key"
        + " from " + table + " where mirror = ? and rewrite = ?")) {
      select.setString(1, mirror);
      select.setString(2, rewrite);
      try (ResultSet rs = select.executeQuery()) {
        At at = rs.next() ? new At(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)) : null;
        connection.commit();
        return at;
      }
    }
  }

  /** Records {@code at} in the caller's open transaction, to commit with the rows it rewrote. */
  void record(Connection connection, At at) throws SQLException {
    try (PreparedStatement upsert = connection.prepareStatement("insert into " + table
        + " (mirror, rewrite, collection, stage, after_position, after_key) values (?, ?, ?, ?, ?, ?)"
        + " on conflict (mirror) do update set rewrite = excluded.rewrite, collection = excluded.collection,"
        + " stage = excluded.stage, after_position = excluded.after_position, after_key = excluded.after_key")) {
      upsert.setString(1, mirror);
      upsert.setString(2, rewrite);
      upsert.setString(3, at.collection());
      upsert.setString(4, at.stage());
      upsert.setString(5, at.position());
      upsert.setString(6, at.key());
      upsert.executeUpdate();
    }
  }
}
