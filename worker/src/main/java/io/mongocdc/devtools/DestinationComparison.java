package io.mongocdc.devtools;

import static io.mongocdc.destination.DestinationColumn.DELETED;
import static io.mongocdc.destination.DestinationColumn.DOC;
import static io.mongocdc.destination.DestinationColumn.ID;

import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.privacy.MirrorRedaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Compares the destination tables with a model of the source's final state (what {@code dev} and
 * the cluster test check a generator-fed mirror against), inside PostgreSQL:
 * the expected rows are loaded into a temporary table and joined, so documents compare as
 * jsonb values (key order and spacing do not matter, values do).
 */
public final class DestinationComparison {

  private DestinationComparison() {}

  /**
   * Rows that differ, are missing, or are live in the destination but not in the model, whose
   * documents are compared as the mirror's field rules ({@code redaction}) leave them.
   */
  public static long mismatches(Connection connection, String schema, Map<Namespace, Map<BsonValue, BsonDocument>> expected,
      MirrorRedaction redaction) throws SQLException {
    IdKeyRenderer keys = new IdKeyRenderer();
    TranscodingJsonRenderer documents = TranscodingJsonRenderer.relaxed();
    try (Statement statement = connection.createStatement()) {
      statement.execute("create temporary table dev_expected (tbl text, id text, doc jsonb)");
    }
    try (PreparedStatement insert = connection.prepareStatement("insert into dev_expected values (?, ?, ?::jsonb)")) {
      int pending = 0;
      for (Map.Entry<Namespace, Map<BsonValue, BsonDocument>> collection : expected.entrySet()) {
        String table = TableNaming.instance().tableFor(collection.getKey());
        for (Map.Entry<BsonValue, BsonDocument> row : collection.getValue().entrySet()) {
          insert.setString(1, table);
          insert.setString(2, keys.render(row.getKey()));
          insert.setString(3, documents.render(redaction.document(collection.getKey().collection(),
              new RawBsonDocument(row.getValue(), new BsonDocumentCodec()))));
          insert.addBatch();
          if (++pending % 1000 == 0) {
            insert.executeBatch();
          }
        }
      }
      insert.executeBatch();
    }
    long mismatches = 0;
    for (Namespace collection : expected.keySet()) {
      String table = TableNaming.instance().tableFor(collection);
      String sql = "select count(*) from (select " + ID.quoted() + " as id, " + DOC.quoted() + " as doc from "
          + TableNaming.qualified(schema, table) + " where not " + DELETED.quoted() + ") actual"
          + " full outer join (select id, doc from dev_expected where tbl = ?) wanted"
          + " on actual.id = wanted.id where actual.id is null or wanted.id is null or actual.doc <> wanted.doc";
      mismatches += SqlNumber.of(connection, sql, table);
    }
    try (Statement statement = connection.createStatement()) {
      statement.execute("drop table dev_expected");
    }
    return mismatches;
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
