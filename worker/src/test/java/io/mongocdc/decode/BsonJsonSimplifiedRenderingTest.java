package io.mongocdc.decode;

import static io.mongocdc.decode.RenderAssertions.assertStrictJson;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDbPointer;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonJavaScriptWithScope;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonUndefined;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The simplified mode, type by type (docs/json-rendering.md). */
class BsonJsonSimplifiedRenderingTest {

  private final TranscodingJsonRenderer renderer = TranscodingJsonRenderer.simplified();

  private String render(BsonValue value) {
    String json = renderer.render(new RawBsonDocument(new BsonDocument("v", value), new BsonDocumentCodec()));
    assertStrictJson(json.getBytes(StandardCharsets.UTF_8));
    return json.substring("{\"v\":".length(), json.length() - 1);
  }

  @Test
  void numbers() {
    assertEquals("1", render(new BsonInt32(1)));
    assertEquals("9007199254740993", render(new BsonInt64(9_007_199_254_740_993L)));
    assertEquals("1.0", render(new BsonDouble(1.0)));
    assertEquals("-0.0", render(new BsonDouble(-0.0)));
    assertEquals("100000000000000000000.0", render(new BsonDouble(1e20)));
    assertEquals("\"NaN\"", render(new BsonDouble(Double.NaN)));
    assertEquals("\"Infinity\"", render(new BsonDouble(Double.POSITIVE_INFINITY)));
    assertEquals("\"-Infinity\"", render(new BsonDouble(Double.NEGATIVE_INFINITY)));
  }

  @ParameterizedTest
  @CsvSource({"1.10, 1.10", "-0, -0", "1E+6111, 1E+6111", "NaN, NaN", "-Infinity, -Infinity"})
  void decimalsAreStrings(String value, String text) {
    assertEquals("\"" + text + "\"", render(new BsonDecimal128(Decimal128.parse(value))));
  }

  @Test
  void objectIdIsHex() {
    assertEquals("\"57e193d7a9cc81b4027498b5\"", render(new BsonObjectId(new ObjectId("57e193d7a9cc81b4027498b5"))));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "0 | 1970-01-01T00:00:00.000Z",
      "1356351330501 | 2012-12-24T12:15:30.501Z",
      "-1 | 1969-12-31T23:59:59.999Z",
      "-62135596800000 | 0001-01-01T00:00:00.000Z",
      "-62167219200001 | -0001-12-31T23:59:59.999Z",
      "253402300800000 | +10000-01-01T00:00:00.000Z",
      "9223372036854775807 | +292278994-08-17T07:12:55.807Z",
      "-9223372036854775808 | -292275055-05-16T16:47:04.192Z",
  })
  void datesAreIsoStringsForEveryYear(long millis, String iso) {
    assertEquals("\"" + iso + "\"", render(new BsonDateTime(millis)));
  }

  @Test
  void binaryIsBase64AndUuidIsText() {
    byte[] uuid = HexFormat.of().parseHex("c8edabc3f7384ca3b68dab92a91478a3");
    assertEquals("\"c8edabc3-f738-4ca3-b68d-ab92a91478a3\"", render(new BsonBinary((byte) 4, uuid)));
    assertEquals("\"yO2rw/c4TKO2jauSqRR4ow==\"", render(new BsonBinary((byte) 3, uuid)));
    assertEquals("\"MTIz\"", render(new BsonBinary((byte) 0x80, "123".getBytes(StandardCharsets.US_ASCII))));
    assertEquals("\"//8=\"", render(new BsonBinary((byte) 2, new byte[] {-1, -1})));
    assertEquals("\"AAE=\"", render(new BsonBinary((byte) 4, new byte[] {0, 1})));
  }

  @Test
  void otherTypes() {
    assertEquals("true", render(BsonBoolean.TRUE));
    assertEquals("null", render(BsonNull.VALUE));
    assertEquals("null", render(new BsonUndefined()));
    assertEquals("\"/a.c/ix\"", render(new BsonRegularExpression("a.c", "xi")));
    assertEquals("{\"$ref\":\"db.c\",\"$id\":\"56e1fc72e0c917e9c4714161\"}",
        render(new BsonDbPointer("db.c", new ObjectId("56e1fc72e0c917e9c4714161"))));
    assertEquals("\"f()\"", render(new BsonJavaScript("f()")));
    assertEquals("\"sym\"", render(new BsonSymbol("sym")));
    assertEquals("{\"$code\":\"f()\",\"$scope\":{\"d\":\"1970-01-01T00:00:00.000Z\"}}",
        render(new BsonJavaScriptWithScope("f()", new BsonDocument("d", new BsonDateTime(0)))));
    assertEquals("{\"t\":42,\"i\":1}", render(new BsonTimestamp(42, 1)));
    assertEquals("{\"$minKey\":1}", render(new BsonMinKey()));
    assertEquals("{\"$maxKey\":1}", render(new BsonMaxKey()));
  }

  @Test
  void nestedDocumentsUseSimplifiedValuesToo() {
    BsonDocument document = new BsonDocument("a", new BsonArray(List.of(
        new BsonDocument("id", new BsonObjectId(new ObjectId("57e193d7a9cc81b4027498b5"))),
        new BsonString("x"))));
    assertEquals("{\"a\":[{\"id\":\"57e193d7a9cc81b4027498b5\"},\"x\"]}", render(document));
  }

  @Test
  void isoFormatAgreesWithJavaTimeOnRandomInstants() {
    java.util.Random random = new java.util.Random(17);
    for (int i = 0; i < 20_000; i++) {
      long millis = switch (i % 3) {
        case 0 -> random.nextLong();
        case 1 -> random.nextLong() % 400_000_000_000_000L;
        default -> random.nextLong() % 4_000_000_000_000L;
      };
      java.time.LocalDateTime t = java.time.LocalDateTime.ofEpochSecond(
          Math.floorDiv(millis, 1000), Math.floorMod(millis, 1000) * 1_000_000, java.time.ZoneOffset.UTC);
      int y = t.getYear();
      String year = y > 9999 ? "+" + y : y < 0 ? "-" + String.format("%04d", -y) : String.format("%04d", y);
      String expected = year + String.format("-%02d-%02dT%02d:%02d:%02d.%03dZ", t.getMonthValue(), t.getDayOfMonth(),
          t.getHour(), t.getMinute(), t.getSecond(), t.getNano() / 1_000_000);
      Utf8JsonOutput out = new Utf8JsonOutput(64);
      IsoDateTimeFormat.write(millis, out);
      assertEquals(expected, out.toUtf8String(), "millis " + millis);
    }
  }
}
