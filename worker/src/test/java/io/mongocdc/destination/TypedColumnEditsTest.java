package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.activities.InMemoryTableOwnership;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.MirrorColumns;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.TypedColumn;
import io.mongocdc.workflows.model.TypedColumnSettings;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Typed-column edits over a table's lifetime (issue 36, findings 1, 2, 4 and 5): after an edit is
 * aligned, every row's typed columns and {@code _drift} equal what the stream writes for the row's
 * current document. The check is literal: the same documents streamed into a fresh table of a
 * mirror created with the final columns, compared row by row.
 */
class TypedColumnEditsTest {

  private static final Namespace USERS = new Namespace("app", "users");
  private static final Namespace ORDERS = new Namespace("app", "orders");
  private static final String PEER = "edits-pg";
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static final AtomicLong POSITIONS = new AtomicLong();

  private static DataSource data;
  private static PostgresMirrorDestination destination;

  private final String schema = "edits" + SCHEMAS.incrementAndGet();

  @BeforeAll
  static void database() {
    data = EmbeddedPostgresSupport.newDatabase("typed_edits");
    String url = EmbeddedPostgresSupport.postgres().getJdbcUrl("postgres", ((PGSimpleDataSource) data).getDatabaseName());
    destination = new PostgresMirrorDestination(new ConfiguredPeerRegistry(Map.of(PEER, url), Map.of()),
        PostgresSinkOptions.defaults(), new InMemoryTableOwnership());
  }

  @Test
  void aColumnRedefinedByNameTakesItsNewPathInEveryRow() throws Exception {
    Map<String, BsonDocument> users = users(40, 0);
    MirrorConfig byVersion = mirror(schema, List.of("users"), columns("users", column("v", "bigint", "version")));
    destination.createTables(byVersion);
    stream(byVersion, USERS, users);

    MirrorConfig byAge = byVersion.withSettings(settings(columns("users", column("v", "bigint", "age"))));
    align(byVersion, byAge, Map.of());

    assertAsStreamed(byAge, Map.of(USERS, users));
  }

  /** The edit validator refuses a type change of a current column; after a removal that kept the data it is allowed. */
  @Test
  void aColumnAddedAgainWithAnotherTypeReplacesTheKeptOneInsteadOfFailingEveryBatch() throws Exception {
    Map<String, BsonDocument> users = users(20, 0);
    MirrorConfig asText = mirror(schema, List.of("users"), columns("users", column("v", "text", "name")));
    destination.createTables(asText);
    stream(asText, USERS, users);
    MirrorConfig removed = asText.withSettings(settings(Map.of()));
    align(asText, removed, Map.of());

    MirrorConfig asNumber = asText.withSettings(settings(columns("users", column("v", "bigint", "age"))));
    align(removed, asNumber, Map.of());

    assertAsStreamed(asNumber, Map.of(USERS, users));
  }

  @Test
  void aColumnAddedAgainAfterItsRemovalHoldsNoStaleValue() throws Exception {
    Map<String, BsonDocument> users = users(30, 0);
    MirrorConfig kept = mirror(schema, List.of("users"), columns("users", column("ver", "bigint", "version")));
    destination.createTables(kept);
    stream(kept, USERS, users);

    // Removed with its data kept: the stream no longer writes it while documents change.
    MirrorConfig removed = kept.withSettings(settings(Map.of()));
    align(kept, removed, Map.of());
    Map<String, BsonDocument> changed = users(30, 1_000);
    stream(removed, USERS, changed);

    MirrorConfig again = kept;
    align(removed, again, Map.of());

    assertAsStreamed(again, Map.of(USERS, changed));
  }

  @Test
  void aMirrorOfEveryCollectionAddsFillsAndIndexesTheColumnsOfTheTablesItHas() throws Exception {
    Map<String, BsonDocument> users = users(25, 0);
    Map<String, BsonDocument> orders = users(10, 500);
    MirrorConfig plain = mirror(schema, List.of(), Map.of());
    stream(plain, USERS, users);
    stream(plain, ORDERS, orders);

    MirrorConfig typed = plain.withSettings(MirrorSettings.defaults().withColumns(new TypedColumnSettings(
        columns("users", column("age", "bigint", "age")), Map.of("users", List.of("age")))));
    align(plain, typed, Map.of());
    int indexes = destination.createTypedColumnIndexes(typed, () -> {});

    assertEquals(1, indexes, "the index of the column of users");
    assertAsStreamed(typed, Map.of(USERS, users, ORDERS, orders));
  }

  @Test
  void largeDoublesAreFilledExactlyAsTheStreamWritesThem() throws Exception {
    Map<String, BsonDocument> numbers = new LinkedHashMap<>();
    double[] values = {1.0E19, 1.0E16, 12_345_678.0, 1.0E300, -2.5E10, 3.0, 0.5, 9.007199254740993E15};
    for (int i = 0; i < values.length; i++) {
      numbers.put("n" + i, new BsonDocument("_id", new BsonString("n" + i)).append("n", new BsonDouble(values[i])));
    }
    MirrorConfig plain = mirror(schema, List.of("users"), Map.of());
    destination.createTables(plain);
    stream(plain, USERS, numbers);

    MirrorConfig typed = plain.withSettings(settings(columns("users", column("n_text", "text", "n"),
        column("n_bigint", "bigint", "n"), column("n_numeric", "numeric", "n"), column("n_double", "double precision", "n"))));
    align(plain, typed, Map.of());

    assertAsStreamed(typed, Map.of(USERS, numbers));
  }

  /**
   * A double stored before {@code doc} kept its fraction comes back from jsonb as an integer beyond
   * int64, which Extended JSON cannot read: the row's columns are drift, the fill goes on.
   */
  @Test
  void aDocJsonbGivesBackBeyondInt64IsDriftNotAStuckFill() throws Exception {
    MirrorConfig plain = mirror(schema, List.of("users"), Map.of());
    destination.createTables(plain);
    try (RecordSink sink = destination.openSink(plain, 1)) {
      sink.write(List.of(record(USERS, "old", "{\"_id\": \"old\", \"n\": 1.0E19}", null)));
      sink.commit();
    }
    stream(plain, USERS, users(3, 0));

    MirrorConfig typed = plain.withSettings(settings(columns("users", column("n", "bigint", "n"))));
    align(plain, typed, Map.of());

    String table = TableNaming.qualified(schema, TableNaming.tableName(USERS));
    assertEquals("unreadable|null", one("select _drift->'n'->>'bsonType' || '|' || coalesce(n::text, 'null') from " + table
        + " where _id = 'old'"));
    assertEquals("3", one("select count(*) from " + table + " where _drift->'n'->>'bsonType' = 'missing'"),
        "the other rows are filled");
  }

  /** Documents {@code u0..}: some lack {@code version}, some {@code age}; {@code shift} changes the values. */
  private static Map<String, BsonDocument> users(int count, int shift) {
    Map<String, BsonDocument> users = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      BsonDocument doc = new BsonDocument("_id", new BsonString("u" + i)).append("name", new BsonString("n" + (i + shift)));
      if (i % 5 != 0) {
        doc.append("version", new BsonInt64(7L * i + shift));
      }
      if (i % 7 != 0) {
        doc.append("age", new BsonInt32(20 + i + shift));
      }
      users.put("u" + i, doc);
    }
    return users;
  }

  private static TypedColumn column(String name, String type, String path) {
    return new TypedColumn(name, type, path);
  }

  private static Map<String, List<TypedColumn>> columns(String collection, TypedColumn... columns) {
    return Map.of(collection, List.of(columns));
  }

  private static MirrorSettings settings(Map<String, List<TypedColumn>> columns) {
    return MirrorSettings.defaults().withColumns(new TypedColumnSettings(columns, Map.of()));
  }

  private static MirrorConfig mirror(String schema, List<String> collections, Map<String, List<TypedColumn>> columns) {
    return new MirrorConfig("m-" + schema, "edits-mongo", PEER, "app", collections, schema, settings(columns));
  }

  /** Writes the documents as the stream does: rendered, their typed values projected, in one batch. */
  private static void stream(MirrorConfig mirror, Namespace collection, Map<String, BsonDocument> documents)
      throws Exception {
    ColumnProjections projections = MirrorColumns.of(mirror, TranscodingJsonRenderer.relaxed());
    DocumentProjector projector = projections.of(collection);
    List<ChangeRecord> records = new ArrayList<>();
    documents.forEach((key, document) -> {
      RawBsonDocument raw = new RawBsonDocument(document, new BsonDocumentCodec());
      records.add(record(collection, key, TranscodingJsonRenderer.relaxed().render(raw),
          projector == null ? null : projector.project(raw)));
    });
    try (RecordSink sink = destination.openSink(mirror, POSITIONS.get())) {
      sink.write(records);
      sink.commit();
    }
  }

  private static ChangeRecord record(Namespace collection, String key, String document,
      io.mongocdc.decode.TypedValues typed) {
    return ChangeRecord.builder().operation(Operation.REPLACE).source(collection).table(TableNaming.tableName(collection))
        .key(key).document(document).position(Records.pos(POSITIONS.incrementAndGet())).commitTime(Records.T0)
        .sourceBytes(100).typed(typed).build();
  }

  /** The edit as the workflow aligns it: the first call, then every later one until done. */
  private static void align(MirrorConfig before, MirrorConfig after, Map<String, List<String>> drop) {
    TypedColumnsAligned aligned = destination.alignTypedColumns(TypedColumnsRequest.first(after, drop,
        after.settings().columns().changedSince(before.settings().columns())), () -> {});
    while (aligned.resumeAfter() != null) {
      aligned = destination.alignTypedColumns(TypedColumnsRequest.resume(after, aligned.resumeAfter()), () -> {});
    }
  }

  /** Every row's typed columns and drift equal those of the same documents streamed into a fresh mirror. */
  private void assertAsStreamed(MirrorConfig mirror, Map<Namespace, Map<String, BsonDocument>> current) throws Exception {
    String fresh = schema + "_fresh";
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
          "rows of " + collection + " that differ from what the stream writes");
      assertEquals(String.valueOf(current.get(collection).size()), one("select count(*) from "
          + TableNaming.qualified(schema, table)));
    }
  }

  private static String one(String sql) throws Exception {
    try (Connection c = data.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static String rows(String sql) throws Exception {
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
