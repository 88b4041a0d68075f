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
import org.junit.jupiter.api.BeforeEach;
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
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static TypedColumnTables tables;

  private final String schema = "edits" + SCHEMAS.incrementAndGet();
  private PostgresMirrorDestination destination;

  @BeforeAll
  static void database() {
    tables = new TypedColumnTables("typed_edits");
  }

  @BeforeEach
  void fixture() {
    destination = tables.destination();
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
      sink.write(List.of(tables.record(USERS, "old", "{\"_id\": \"old\", \"n\": 1.0E19}", null)));
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

  /**
   * Issue 47, finding 11: adding a typed column wiped the other typed values of a row an old
   * release stored with {@code 1.0E19}: the fill wrote every column of a row it could not read.
   * It writes only the columns the row lacks.
   */
  @Test
  void addingAColumnKeepsTheOtherTypedValuesOfARowWhoseDocCannotBeRead() throws Exception {
    MirrorConfig named = mirror(schema, List.of("users"), columns("users", column("nm", "text", "name")));
    destination.createTables(named);
    try (RecordSink sink = destination.openSink(named, 1)) {
      // As a release before doubles kept their fraction streamed it: nm from the raw BSON, doc with 1.0E19.
      sink.write(List.of(tables.record(USERS, "old", "{\"_id\": \"old\", \"name\": \"Ann\", \"n\": 1.0E19}",
          new io.mongocdc.decode.TypedValues(new Object[] {"Ann"}, null, List.of()))));
      sink.commit();
    }
    stream(named, USERS, users(3, 0));

    MirrorConfig typed = named.withSettings(settings(columns("users", column("nm", "text", "name"),
        column("n", "bigint", "n"))));
    align(named, typed, Map.of());

    String table = TableNaming.qualified(schema, TableNaming.tableName(USERS));
    assertEquals("Ann", one("select nm from " + table + " where _id = 'old'"), "the value it held is kept");
    assertEquals("unreadable|null|false", one("select (_drift->'n'->>'bsonType') || '|' || coalesce(n::text, 'null')"
        + " || '|' || jsonb_exists(_drift, 'nm') from " + table + " where _id = 'old'"));
    assertEquals("3", one("select count(*) from " + table + " where nm like 'n%' and _drift->'n'->>'bsonType' = 'missing'"),
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
    return TypedColumnTables.mirror(schema, collections, settings(columns));
  }

  private void stream(MirrorConfig mirror, Namespace collection, Map<String, BsonDocument> documents) throws Exception {
    tables.stream(mirror, collection, documents);
  }

  private void align(MirrorConfig before, MirrorConfig after, Map<String, List<String>> drop) {
    tables.align(before, after, drop);
  }

  private void assertAsStreamed(MirrorConfig mirror, Map<Namespace, Map<String, BsonDocument>> current) throws Exception {
    tables.assertAsStreamed(mirror, current, "");
  }

  private String one(String sql) throws Exception {
    return tables.one(sql);
  }
}
