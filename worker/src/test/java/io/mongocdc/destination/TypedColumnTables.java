package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.activities.InMemoryTableOwnership;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.MirrorColumns;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.decode.TypedValues;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.TypedColumn;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL destination of typed-column edit tests, and the check they share: documents
 * written as the stream writes them, an edit aligned as the workflow aligns it, and every row
 * compared with the same documents streamed into a fresh table of a mirror created with the final
 * columns ("what the stream would write", literally).
 */
final class TypedColumnTables {

  static final String PEER = "edits-pg";

  private final DataSource data;
  private final PostgresMirrorDestination destination;
  private final AtomicLong positions = new AtomicLong();

  TypedColumnTables(String database) {
    data = EmbeddedPostgresSupport.newDatabase(database);
    String url = EmbeddedPostgresSupport.postgres().getJdbcUrl("postgres", ((PGSimpleDataSource) data).getDatabaseName());
    destination = new PostgresMirrorDestination(new ConfiguredPeerRegistry(Map.of(PEER, url), Map.of()),
        PostgresSinkOptions.defaults(), new InMemoryTableOwnership());
  }

  PostgresMirrorDestination destination() {
    return destination;
  }

  /** A mirror of source database {@code app} whose tables are in {@code schema}. */
  static MirrorConfig mirror(String schema, List<String> collections, MirrorSettings settings) {
    return new MirrorConfig("m-" + schema, "edits-mongo", PEER, "app", collections, schema, settings);
  }

  /** Writes the documents as the stream does: rendered, their typed values projected, in one batch. */
  void stream(MirrorConfig mirror, Namespace collection, Map<String, BsonDocument> documents) throws Exception {
    DocumentProjector projector = MirrorColumns.of(mirror, TranscodingJsonRenderer.relaxed()).of(collection);
    List<ChangeRecord> records = new ArrayList<>();
    documents.forEach((key, document) -> {
      RawBsonDocument raw = new RawBsonDocument(document, new BsonDocumentCodec());
      records.add(record(collection, key, TranscodingJsonRenderer.relaxed().render(raw),
          projector == null ? null : projector.project(raw)));
    });
    try (RecordSink sink = destination.openSink(mirror, positions.get())) {
      sink.write(records);
      sink.commit();
    }
  }

  /** A replace of {@code key}, after every record made before it. */
  ChangeRecord record(Namespace collection, String key, String document, TypedValues typed) {
    return ChangeRecord.builder().operation(Operation.REPLACE).source(collection).table(TableNaming.tableName(collection))
        .key(key).document(document).position(Records.pos(positions.incrementAndGet())).commitTime(Records.T0)
        .sourceBytes(100).typed(typed).build();
  }

  /** The edit as the workflow aligns it: the first call, then every later one until done. */
  void align(MirrorConfig before, MirrorConfig after, Map<String, List<String>> drop) {
    TypedColumnsAligned aligned = destination.alignTypedColumns(TypedColumnsRequest.first(before, after, drop), () -> {});
    while (aligned.resumeAfter() != null) {
      aligned = destination.alignTypedColumns(TypedColumnsRequest.resume(after, aligned.resumeAfter()), () -> {});
    }
  }

  /**
   * Every row's typed columns and drift in the mirror's tables equal those of the documents
   * {@code current} streamed into a fresh schema named after the mirror's and {@code step}.
   */
  void assertAsStreamed(MirrorConfig mirror, Map<Namespace, Map<String, BsonDocument>> current, String step)
      throws Exception {
    String schema = mirror.destinationSchema();
    String fresh = schema + "_fresh" + step;
    MirrorConfig expected = new MirrorConfig("m-" + fresh, mirror.sourcePeer(), PEER, mirror.sourceDatabase(),
        mirror.collections(), fresh, mirror.settings());
    destination.createTables(expected);
    for (Map.Entry<Namespace, Map<String, BsonDocument>> documents : current.entrySet()) {
      stream(expected, documents.getKey(), documents.getValue());
    }
    for (Namespace collection : current.keySet()) {
      List<TypedColumn> typed = mirror.settings().columns().of(collection.collection());
      String columns = typed.stream().map(c -> TableNaming.quote(c.name()) + "::text").collect(Collectors.joining(", "));
      String select = "select _id, " + (columns.isEmpty() ? "" : columns + ", ") + "%s from %s";
      String drift = typed.isEmpty() ? "null::text" : "_drift::text";
      String table = TableNaming.tableName(collection);
      String ours = String.format(select, drift, TableNaming.qualified(schema, table));
      String theirs = String.format(select, drift, TableNaming.qualified(fresh, table));
      assertEquals("", rows("(" + ours + " except " + theirs + ") union all (" + theirs + " except " + ours + ")"),
          "rows of " + collection + " that differ from what the stream writes (step " + step + ")");
      assertEquals(String.valueOf(current.get(collection).size()), one("select count(*) from "
          + TableNaming.qualified(schema, table)));
    }
  }

  String one(String sql) throws Exception {
    try (Connection c = data.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  String rows(String sql) throws Exception {
    StringBuilder out = new StringBuilder();
    try (Connection c = data.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        for (int i = 1; i <= n; i++) {
          out.append(i == 1 ? "" : " | ").append(rs.getString(i));
        }
        out.append('\n');
      }
    }
    return out.toString();
  }
}
