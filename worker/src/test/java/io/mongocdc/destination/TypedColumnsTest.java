package io.mongocdc.destination;

import static io.mongocdc.destination.Records.pos;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjection;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.ColumnType;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every BSON type into every typed column type, through the projector and the sink's binary COPY
 * into PostgreSQL and back as PostgreSQL prints it: the conversions table of {@code
 * docs/destination.md}. Written twice: into the empty table (the direct COPY) and over the rows
 * (the staged merge), which must agree.
 */
class TypedColumnsTest {

  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static DataSource dataSource;

  private static final List<ColumnType> TYPES = List.of(ColumnType.values());
  /** Drift. */
  private static final String D = "DRIFT";
  /** NULL without drift. */
  private static final String N = "NULL";
  /** The jsonb column: always {@code doc->'v'}. */
  private static final String J = "=doc";

  private final String schema = "tc" + SCHEMAS.incrementAndGet();
  private final Namespace orders = new Namespace("app", "orders");

  @BeforeAll
  static void database() {
    dataSource = EmbeddedPostgresSupport.newDatabase("typed");
  }

  private record Case(String label, BsonValue value, List<String> expected) {}

  private static Case row(String label, BsonValue value, String... byType) {
    return new Case(label, value, List.of(byType));
  }

  private static final byte[] UUID_BYTES = {
    0x0f, (byte) 0x8f, (byte) 0xad, 0x5b, (byte) 0xd9, (byte) 0xcb, 0x46, (byte) 0x9f,
    (byte) 0xa1, 0x65, 0x70, (byte) 0x86, 0x77, 0x28, (byte) 0x95, 0x0e};
  private static final String UUID_TEXT = "0f8fad5b-d9cb-469f-a165-70867728950e";

  //                                  text, bigint, numeric, double precision, boolean, timestamptz, uuid, jsonb, text[]
  private static final List<Case> CASES = List.of(
      row("string", new BsonString("abc"), "abc", D, D, D, D, D, D, J, D),
      row("digits", new BsonString("123"), "123", D, D, D, D, D, D, J, D),
      row("uuidText", new BsonString(UUID_TEXT), UUID_TEXT, D, D, D, D, D, UUID_TEXT, J, D),
      row("nul", new BsonString("a\0b"), D, D, D, D, D, D, D, J, D),
      row("int32", new BsonInt32(42), "42", "42", "42", "42", D, D, D, J, D),
      row("int64", new BsonInt64(-5), "-5", "-5", "-5", "-5", D, D, D, J, D),
      row("int64Beyond2^53", new BsonInt64((1L << 53) + 1), "9007199254740993", "9007199254740993",
          "9007199254740993", D, D, D, D, J, D),
      row("int64At2^53", new BsonInt64(1L << 53), "9007199254740992", "9007199254740992", "9007199254740992",
          "9.007199254740992e+15", D, D, D, J, D),
      row("int64Max", new BsonInt64(Long.MAX_VALUE), "9223372036854775807", "9223372036854775807",
          "9223372036854775807", D, D, D, D, J, D),
      row("double", new BsonDouble(1.5), "1.5", D, "1.5", "1.5", D, D, D, J, D),
      row("doubleWhole", new BsonDouble(3.0), "3", "3", "3.0", "3", D, D, D, J, D),
      row("doubleTenth", new BsonDouble(0.1), "0.1", D, "0.1", "0.1", D, D, D, J, D),
      row("doubleHuge", new BsonDouble(1e300), "1E+300", D, "1" + "0".repeat(300), "1e+300", D, D, D, J, D),
      row("doubleNaN", new BsonDouble(Double.NaN), "NaN", D, "NaN", "NaN", D, D, D, J, D),
      row("doubleInfinity", new BsonDouble(Double.POSITIVE_INFINITY), "Infinity", D, "Infinity", "Infinity", D, D,
          D, J, D),
      row("doubleMinusInfinity", new BsonDouble(Double.NEGATIVE_INFINITY), "-Infinity", D, "-Infinity",
          "-Infinity", D, D, D, J, D),
      row("decimal", new BsonDecimal128(Decimal128.parse("12.340")), "12.340", D, "12.340", "12.34", D, D, D, J,
          D),
      row("decimalWhole", new BsonDecimal128(Decimal128.parse("7")), "7", "7", "7", "7", D, D, D, J, D),
      row("decimalInexactDouble", new BsonDecimal128(Decimal128.parse("0.12345678901234567890")),
          "0.12345678901234567890", D, "0.12345678901234567890", D, D, D, D, J, D),
      row("decimalBig", new BsonDecimal128(Decimal128.parse("1E+40")), "1E+40", D,
          "1" + "0".repeat(40), "1e+40", D, D, D, J, D),
      row("decimalTiny", new BsonDecimal128(Decimal128.parse("-0.0001")), "-0.0001", D, "-0.0001", "-0.0001",
          D, D, D, J, D),
      row("decimalNaN", new BsonDecimal128(Decimal128.NaN), "NaN", D, "NaN", "NaN", D, D, D, J, D),
      row("decimalMinusInfinity", new BsonDecimal128(Decimal128.NEGATIVE_INFINITY), "-Infinity", D, "-Infinity",
          "-Infinity", D, D, D, J, D),
      row("boolean", BsonBoolean.TRUE, "true", D, D, D, "true", D, D, J, D),
      row("date", new BsonDateTime(1_704_164_645_678L), "2024-01-02T03:04:05.678Z", D, D, D, D,
          "2024-01-02 03:04:05.678+00", D, J, D),
      row("dateBeforeTimestamptz", new BsonDateTime(-9_000_000_000_000_000L), "-283229-05-10T08:00:00.000Z", D, D, D, D, D, D,
          J, D),
      row("timestamp", new BsonTimestamp(1_700_000_000, 1), D, D, D, D, D, "2023-11-14 22:13:20+00", D, J, D),
      row("objectId", new BsonObjectId(new ObjectId("65a1b2c3d4e5f60718293a4b")), "65a1b2c3d4e5f60718293a4b", D,
          D, D, D, D, D, J, D),
      row("uuid", new BsonBinary((byte) 4, UUID_BYTES), UUID_TEXT, D, D, D, D, D, UUID_TEXT, J, D),
      row("legacyUuid", new BsonBinary((byte) 3, UUID_BYTES), D, D, D, D, D, D, D, J, D),
      row("binary", new BsonBinary(new byte[] {1, 2}), D, D, D, D, D, D, D, J, D),
      row("null", BsonNull.VALUE, N, N, N, N, N, N, N, N, N),
      row("document", new BsonDocument("a", new BsonInt32(1)), D, D, D, D, D, D, D, J, D),
      row("array", new BsonArray(List.of(new BsonString("x"), new BsonInt32(1), BsonNull.VALUE,
          new BsonString("with \"quote\""))), D, D, D, D, D, D, D, J, "{x,1,NULL,\"with \\\"quote\\\"\"}"),
      row("emptyArray", new BsonArray(), D, D, D, D, D, D, D, J, "{}"),
      row("arrayOfDocuments", new BsonArray(List.of(new BsonDocument("a", new BsonInt32(1)))), D, D, D, D, D, D,
          D, J, D),
      row("regex", new BsonRegularExpression("a", "i"), D, D, D, D, D, D, D, J, D),
      row("minKey", new BsonMinKey(), D, D, D, D, D, D, D, J, D));

  private static String column(ColumnType type) {
    return "t_" + type.name().toLowerCase();
  }

  private List<ColumnProjection> columns() {
    List<ColumnProjection> columns = new ArrayList<>();
    for (ColumnType type : TYPES) {
      columns.add(new ColumnProjection(column(type), type, List.of("v")));
    }
    columns.add(new ColumnProjection("missing", ColumnType.TEXT, List.of("no", "such")));
    return columns;
  }

  @Test
  void everyBsonTypeIntoEveryColumnTypeByCopyAndByMerge() throws Exception {
    DocumentProjector projector = new DocumentProjector(columns(), TranscodingJsonRenderer.relaxed());
    ColumnProjections projections = ns -> ns.equals(orders) ? projector : null;
    List<DestinationTable> tables;
    try (Connection c = dataSource.getConnection()) {
      tables = PostgresDestination.setUp(c, schema, List.of(orders));
    }
    for (Operation operation : List.of(Operation.INSERT, Operation.REPLACE)) {
      List<ChangeRecord> records = new ArrayList<>();
      int n = operation == Operation.INSERT ? 0 : 1000;
      for (Case c : CASES) {
        RawBsonDocument document = new RawBsonDocument(new BsonDocument("_id", new BsonString(c.label()))
            .append("v", c.value()), new BsonDocumentCodec());
        records.add(ChangeRecord.builder().operation(operation).source(orders).table(TableNaming.tableName(orders))
            .key(c.label()).document(TranscodingJsonRenderer.relaxed().render(document)).position(pos(++n))
            .commitTime(Records.T0).sourceBytes(100).typed(projector.project(document)).build());
      }
      SinkBatchStats stats;
      try (PostgresRecordSink sink = PostgresRecordSink.builder(dataSource,
          PostgresSinkOptions.defaults().withSchema(schema), tables).projections(projections).open()) {
        sink.write(records);
        sink.commit();
        stats = sink.lastCommit();
      }
      Map<String, List<String>> got = read();
      for (Case c : CASES) {
        assertEquals(c.expected(), got.get(c.label()), operation + " of " + c.label());
      }
      // Every row lacks the missing path's value, every drifted cell is counted.
      long cells = CASES.stream().mapToLong(c -> c.expected().stream().filter(D::equals).count()).sum();
      Map<String, Long> drift = stats.tables().get(0).drift();
      assertEquals(CASES.size(), drift.get("missing"));
      assertEquals(cells, drift.values().stream().mapToLong(Long::longValue).sum() - CASES.size());
    }
  }

  @Test
  void driftNamesTheBsonTypeAValueExcerptAndTheReason() throws Exception {
    DocumentProjector projector = new DocumentProjector(
        List.of(new ColumnProjection("total", ColumnType.NUMERIC, List.of("amount", "total")),
            new ColumnProjection("sku", ColumnType.TEXT, List.of("items", "0", "sku")),
            new ColumnProjection("gone", ColumnType.TEXT, List.of("items", "5", "sku"))),
        TranscodingJsonRenderer.relaxed());
    RawBsonDocument document = new RawBsonDocument(new BsonDocument("_id", new BsonInt32(1))
        .append("amount", new BsonDocument("total", new BsonString("x".repeat(500))))
        .append("items", new BsonArray(List.of(new BsonDocument("sku", new BsonString("A-1"))))),
        new BsonDocumentCodec());
    var typed = projector.project(document);
    assertNull(typed.values()[0]);
    assertEquals("A-1", typed.values()[1]);
    assertNull(typed.values()[2]);
    assertEquals(List.of("total", "gone"), typed.drifted());
    assertEquals("{\"total\":{\"bsonType\":\"string\",\"value\":\"\\\"" + "x".repeat(63) + "...\","
        + "\"reason\":\"does not convert to numeric\"},\"gone\":{\"bsonType\":\"missing\"}}", typed.drift());
  }

  /** Per row: each typed column as PostgreSQL prints it, DRIFT when the row's _drift names it, NULL else. */
  private Map<String, List<String>> read() throws SQLException {
    StringBuilder sql = new StringBuilder("select \"_id\", \"_drift\" ? 'missing' and \"missing\" is null");
    for (ColumnType type : TYPES) {
      String c = TableNaming.quote(column(type));
      sql.append(", ").append(c).append("::text, \"_drift\" ? '").append(column(type)).append("', ")
          .append(type == ColumnType.JSONB ? c + " = doc->'v'" : "false");
    }
    sql.append(" from ").append(TableNaming.qualified(schema, TableNaming.tableName(orders)));
    Map<String, List<String>> rows = new LinkedHashMap<>();
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
      st.execute("set timezone = 'UTC'");
      try (ResultSet rs = st.executeQuery(sql.toString())) {
        while (rs.next()) {
          assertTrue(rs.getBoolean(2), "the missing path drifts in " + rs.getString(1));
          List<String> cells = new ArrayList<>();
          for (int i = 0; i < TYPES.size(); i++) {
            String text = rs.getString(3 + 3 * i);
            boolean drifted = rs.getBoolean(4 + 3 * i);
            boolean sameAsDoc = rs.getBoolean(5 + 3 * i);
            if (drifted) {
              assertNull(text, "a drifted column is NULL");
              cells.add(D);
            } else if (text == null) {
              cells.add(N);
            } else {
              cells.add(sameAsDoc ? J : text);
            }
          }
          rows.put(rs.getString(1), cells);
        }
      }
    }
    return rows;
  }
}
