package io.mongocdc.devtools;

import static io.mongocdc.destination.DestinationColumn.DELETED;
import static io.mongocdc.destination.DestinationColumn.DOC;
import static io.mongocdc.destination.DestinationColumn.ID;

import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.SnapshotSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;

/**
 * Compares the destination tables with the source's final state (what {@code dev} and the cluster
 * test check a generator-fed mirror against), inside PostgreSQL: the expected documents are read
 * from the source a chunk at a time, loaded into a temporary table and joined with the
 * destination, so documents compare as jsonb values (key order and spacing do not matter, values
 * do). Neither side is ever held whole: a collection of millions costs one chunk of memory.
 */
public final class DestinationComparison {

  /** Expected documents loaded and compared at a time. */
  static final int CHUNK = 20_000;

  private DestinationComparison() {}

  /**
   * Rows that differ, are missing, or are live in the destination but not in {@code expected}
   * (read whole, in {@code _id} order), whose documents are compared as the mirror's field rules
   * ({@code redaction}) leave them.
   */
  public static long mismatches(Connection connection, String schema, List<Namespace> collections,
      SnapshotSource expected, MirrorRedaction redaction) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute("create temporary table dev_expected (id text primary key, doc jsonb)");
    }
    try {
      long mismatches = 0;
      for (Namespace collection : collections) {
        mismatches += mismatches(connection, schema, collection, expected, redaction);
      }
      return mismatches;
    } finally {
      try (Statement statement = connection.createStatement()) {
        statement.execute("drop table dev_expected");
      }
    }
  }

  /** One collection's: each chunk's missing and differing rows, then the live rows no chunk had. */
  private static long mismatches(Connection connection, String schema, Namespace collection, SnapshotSource expected,
      MirrorRedaction redaction) throws SQLException {
    IdKeyRenderer keys = new IdKeyRenderer();
    TranscodingJsonRenderer documents = TranscodingJsonRenderer.relaxed();
    String table = TableNaming.qualified(schema, TableNaming.instance().tableFor(collection));
    String compare = "select count(*) filter (where actual.id is null or actual.doc <> wanted.doc), count(actual.id)"
        + " from dev_expected wanted left join (select " + ID.quoted() + " as id, " + DOC.quoted() + " as doc from "
        + table + " where not " + DELETED.quoted() + ") actual on actual.id = wanted.id";
    long mismatches = 0;
    long found = 0;
    try (DocumentCursor cursor = expected.open(collection.collection(), IdRange.whole(), new BsonDocument(), 1_000);
        PreparedStatement insert = connection.prepareStatement("insert into dev_expected values (?, ?::jsonb)")) {
      RawBsonDocument document = cursor.next();
      while (document != null) {
        for (int rows = 0; rows < CHUNK && document != null; rows++, document = cursor.next()) {
          insert.setString(1, keys.render(document.get("_id")));
          insert.setString(2, documents.render(redaction.document(collection.collection(), document)));
          insert.addBatch();
          if ((rows + 1) % 1_000 == 0) {
            insert.executeBatch();
          }
        }
        insert.executeBatch();
        try (Statement statement = connection.createStatement()) {
          // Statistics, so the join looks the chunk's ids up rather than reading the whole table.
          statement.execute("analyze dev_expected");
          try (ResultSet counts = statement.executeQuery(compare)) {
            counts.next();
            mismatches += counts.getLong(1);
            found += counts.getLong(2);
          }
          statement.execute("truncate dev_expected");
        }
      }
    }
    long live = SqlNumber.of(connection, "select count(*) from " + table + " where not " + DELETED.quoted());
    return mismatches + live - found;
  }

  /** Live rows in the destination tables of these collections. */
  public static long liveRows(Connection connection, String schema, Iterable<Namespace> collections) throws SQLException {
    long rows = 0;
    for (Namespace collection : collections) {
      String table = TableNaming.qualified(schema, TableNaming.instance().tableFor(collection));
      rows += SqlNumber.of(connection, "select count(*) from " + table + " where not " + DELETED.quoted());
    }
    return rows;
  }
}
