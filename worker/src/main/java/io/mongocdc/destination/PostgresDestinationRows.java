package io.mongocdc.destination;

import io.mongocdc.ports.DestinationRows;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.IdTypeBracket;
import io.mongocdc.verify.RangeDigest;
import io.mongocdc.workflows.model.MirrorConfig;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Reads a mirror's table for verify. A range's rows are found by the {@code _id} inside the
 * document ({@code doc->'_id'}, relaxed Extended JSON), parsed back to a BSON value and tested
 * with {@link IdRange#contains}, the same test the planner's ranges are proven with. ObjectId
 * ranges are also narrowed in SQL on the key column (24 lowercase hex digits, which sort like the
 * ObjectId's bytes under {@code collate "C"}), so they use the primary key; other brackets are
 * narrowed to keys of their shape.
 */
final class PostgresDestinationRows implements DestinationRows {

  /** Rows fetched per round trip, so a large table streams in bounded memory. */
  static final int FETCH_SIZE = 2_000;
  private static final String OBJECT_ID_KEY = "\"_id\" ~ '^[0-9a-f]{24}$'";

  private final DataSource data;

  PostgresDestinationRows(DataSource data) {
    this.data = data;
  }

  @Override
  public RangeDigest read(MirrorConfig mirror, String table, IdRange range, Progress progress) throws Exception {
    List<String> bounds = new ArrayList<>();
    String sql = "select \"_id\", doc->'_id', doc::text, \"_position\" from "
        + TableNaming.qualified(mirror.destinationSchema(), table)
        + " where not \"_deleted\" and doc is not null" + narrowing(range, bounds);
    RangeDigest digest = new RangeDigest();
    try (Connection connection = data.getConnection()) {
      connection.setAutoCommit(false);
      connection.setReadOnly(true);
      try (PreparedStatement statement = connection.prepareStatement(sql)) {
        statement.setFetchSize(FETCH_SIZE);
        for (int i = 0; i < bounds.size(); i++) {
          statement.setString(i + 1, bounds.get(i));
        }
        long read = 0;
        try (ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            BsonValue id = idOf(rows.getString(2));
            if (id == null ? isCatchAll(range) : range.contains(id)) {
              digest.add(rows.getString(1), id, rows.getString(3), rows.getString(4));
            }
            if (++read % FETCH_SIZE == 0) {
              progress.read(read);
            }
          }
        }
      } finally {
        connection.rollback();
      }
    }
    return digest;
  }

  @Override
  public Map<String, Row> rows(MirrorConfig mirror, String table, Collection<String> keys) throws Exception {
    Map<String, Row> found = new HashMap<>();
    if (keys.isEmpty()) {
      return found;
    }
    String sql = "select \"_id\", case when \"_deleted\" then null else doc::text end, \"_position\" from "
        + TableNaming.qualified(mirror.destinationSchema(), table) + " where \"_id\" = any(?)";
    try (Connection connection = data.getConnection();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      Array array = connection.createArrayOf("text", keys.toArray());
      statement.setArray(1, array);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          found.put(rows.getString(1), new Row(rows.getString(2), rows.getString(3)));
        }
      }
    }
    return found;
  }

  /** The keys of the live rows whose position is older than {@code position}. */
  List<String> liveKeysOlderThan(MirrorConfig mirror, String table, String position) throws SQLException {
    List<String> keys = new ArrayList<>();
    try (Connection connection = data.getConnection();
        PreparedStatement statement = connection.prepareStatement("select \"_id\" from "
            + TableNaming.qualified(mirror.destinationSchema(), table)
            + " where not \"_deleted\" and \"_position\" < ?")) {
      statement.setString(1, position);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          keys.add(rows.getString(1));
        }
      }
    }
    return keys;
  }

  /** A condition that every row of the range meets (more may), with its parameters added to {@code bounds}. */
  static String narrowing(IdRange range, List<String> bounds) {
    if (range.bracket() == IdTypeBracket.OBJECT_ID) {
      StringBuilder sql = new StringBuilder(" and ").append(OBJECT_ID_KEY);
      if (range.lower() != null) {
        sql.append(" and \"_id\" >= ?");
        bounds.add(range.lower().asObjectId().getValue().toHexString());
      }
      if (range.upper() != null) {
        sql.append(" and \"_id\" < ?");
        bounds.add(range.upper().asObjectId().getValue().toHexString());
      }
      return sql.toString();
    }
    if (range.bracket() == IdTypeBracket.STRING) {
      return " and \"_id\" like '\"%'";
    }
    return "";
  }

  /** The {@code _id} of a stored document, or null if its JSON does not parse back to a value. */
  static BsonValue idOf(String json) {
    if (json == null) {
      return null;
    }
    try {
      return BsonDocument.parse("{\"v\": " + json + "}").get("v");
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** A row whose {@code _id} cannot be read back belongs to the range that takes the unplanned types. */
  private static boolean isCatchAll(IdRange range) {
    return range.bracket() == null;
  }
}
