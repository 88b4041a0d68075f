package io.mongocdc.devtools;

import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.destination.TableNaming;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonObjectId;
import org.bson.types.ObjectId;

/**
 * {@code dev --tamper N}: alters N destination rows behind the mirror's back, as a stray writer
 * or a restored backup would, so that verify has something to find: in turn a row's document
 * changed (position kept, so the mirror does not know), a row deleted, and a row added that the
 * source never had. The rows are taken from the first live rows of the tables by key.
 */
public final class DevTamper {

  /** What was done. */
  public record Tampered(int updated, int deleted, int added) {
    public int total() {
      return updated + deleted + added;
    }
  }

  private DevTamper() {}

  public static Tampered tamper(Connection connection, String schema, List<Namespace> collections, int rows)
      throws SQLException {
    int updated = 0;
    int deleted = 0;
    int added = 0;
    List<String> tables = collections.stream()
        .map(ns -> TableNaming.qualified(schema, TableNaming.instance().tableFor(ns))).toList();
    List<String> keys = new ArrayList<>();
    List<String> keyTables = new ArrayList<>();
    for (String table : tables) {
      try (PreparedStatement select = connection.prepareStatement(
          "select \"_id\" from " + table + " where not \"_deleted\" order by \"_id\" limit ?")) {
        select.setInt(1, rows);
        try (ResultSet result = select.executeQuery()) {
          while (result.next()) {
            keys.add(result.getString(1));
            keyTables.add(table);
          }
        }
      }
    }
    for (int i = 0; i < rows; i++) {
      // Spread over the tables: the i-th pick of table i mod n.
      int pick = pickIndex(keyTables, tables, i);
      String table = tables.get(i % tables.size());
      switch (i % 3) {
        case 0 -> {
          if (pick >= 0) {
            updated += update(connection,
                "update " + table + " set doc = doc || '{\"tampered\": true}' where \"_id\" = ?", keys.get(pick));
          }
        }
        case 1 -> {
          if (pick >= 0) {
            deleted += update(connection, "delete from " + table + " where \"_id\" = ?", keys.get(pick));
          }
        }
        default -> {
          ObjectId id = new ObjectId(0, i);
          try (PreparedStatement insert = connection.prepareStatement("insert into " + table
              + " (\"_id\", doc, \"_position\", \"_commit_time\") values (?, ?::jsonb, '00', now())")) {
            insert.setString(1, new IdKeyRenderer().render(new BsonObjectId(id)));
            insert.setString(2, "{\"_id\": {\"$oid\": \"" + id.toHexString() + "\"}, \"tampered\": true}");
            added += insert.executeUpdate();
          }
        }
      }
    }
    return new Tampered(updated, deleted, added);
  }

  /** The index in {@code keys} of the {@code i}-th tampering's row: the (i / n)-th key of table i mod n. */
  private static int pickIndex(List<String> keyTables, List<String> tables, int i) {
    String table = tables.get(i % tables.size());
    int wanted = i / tables.size();
    for (int k = 0, seen = 0; k < keyTables.size(); k++) {
      if (keyTables.get(k).equals(table) && seen++ == wanted) {
        return k;
      }
    }
    return -1;
  }

  private static int update(Connection connection, String sql, String key) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, key);
      return statement.executeUpdate();
    }
  }
}
