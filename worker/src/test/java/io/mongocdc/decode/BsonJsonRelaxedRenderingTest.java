package io.mongocdc.decode;

import static io.mongocdc.decode.RenderAssertions.assertStrictJson;
import static io.mongocdc.decode.RenderAssertions.expectedAfterRoundTrip;
import static io.mongocdc.decode.RenderAssertions.normalizeParsed;
import static io.mongocdc.decode.RenderAssertions.parseWithDriver;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
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

/**
 * Relaxed Extended JSON v2, type by type, with the specification's (BSON corpus) examples and
 * edge values. Every case also checks that the output is strict JSON and that the driver reads
 * it back to the input.
 */
class BsonJsonRelaxedRenderingTest {

  private final TranscodingJsonRenderer renderer = TranscodingJsonRenderer.relaxed();

  /** Renders {@code {"v": value}} and returns the JSON of the value alone. */
  private String render(BsonValue value) {
    BsonDocument document = new BsonDocument("v", value);
    RawBsonDocument raw = new RawBsonDocument(document, new BsonDocumentCodec());
    String json = renderer.render(raw);
    assertStrictJson(json.getBytes(StandardCharsets.UTF_8));
    assertEquals(expectedAfterRoundTrip(document), normalizeParsed(parseWithDriver(json)), json);
    return json.substring("{\"v\":".length(), json.length() - 1);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "1.0 | 1.0",
      "-1.0 | -1.0",
      "1.0001 | 1.0001",
      "42.42 | 42.42",
      "1.2345678921232E18 | 1234567892123200000.0",
      "-1.2345678921232E18 | -1234567892123200000.0",
      "1.0E20 | 100000000000000000000.0",
      "9999999.0 | 9999999.0",
      "1.0E7 | 10000000.0",
      "1.0E-5 | 1.0E-5",
      "4.9E-324 | 4.9E-324",
      "0.0 | 0.0",
      "-0.0 | -0.0",
  })
  void finiteDoublesAreJsonNumbersWithAFractionOrExponent(double value, String expected) {
    assertEquals(expected, render(new BsonDouble(value)));
  }

  /**
   * jsonb prints a number without its exponent but keeps its fraction digits: a large double
   * written out in full with ".0" still reads back as a double from {@code doc}.
   */
  @Test
  void largeDoublesAreWrittenOutInFullWithAFraction() {
    assertEquals("17976931348623157" + "0".repeat(292) + ".0", render(new BsonDouble(Double.MAX_VALUE)));
    assertEquals("-25000000000.0", render(new BsonDouble(-2.5E10)));
  }

  @Test
  void nonFiniteDoublesAreNumberDoubleWrappers() {
    assertEquals("{\"$numberDouble\":\"NaN\"}", render(new BsonDouble(Double.NaN)));
    assertEquals("{\"$numberDouble\":\"Infinity\"}", render(new BsonDouble(Double.POSITIVE_INFINITY)));
    assertEquals("{\"$numberDouble\":\"-Infinity\"}", render(new BsonDouble(Double.NEGATIVE_INFINITY)));
  }

  @Test
  void oneAndOnePointZeroStayDistinct() {
    assertEquals("1", render(new BsonInt32(1)));
    assertEquals("1.0", render(new BsonDouble(1.0)));
  }

  @Test
  void integersArePlainJsonIntegersIncludingBeyondTwoToThe53() {
    assertEquals("-2147483648", render(new BsonInt32(Integer.MIN_VALUE)));
    assertEquals("2147483647", render(new BsonInt32(Integer.MAX_VALUE)));
    assertEquals("0", render(new BsonInt32(0)));
    assertEquals("9007199254740993", render(new BsonInt64(9_007_199_254_740_993L)));
    assertEquals("-9223372036854775808", render(new BsonInt64(Long.MIN_VALUE)));
    assertEquals("9223372036854775807", render(new BsonInt64(Long.MAX_VALUE)));
    assertEquals("2147483648", render(new BsonInt64(2_147_483_648L)));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "0 | {\"$date\":\"1970-01-01T00:00:00.000Z\"}",
      "1356351330501 | {\"$date\":\"2012-12-24T12:15:30.501Z\"}",
      "253402300799999 | {\"$date\":\"9999-12-31T23:59:59.999Z\"}",
      "253402300800000 | {\"$date\":{\"$numberLong\":\"253402300800000\"}}",
      "-1 | {\"$date\":{\"$numberLong\":\"-1\"}}",
      "-284643869501 | {\"$date\":{\"$numberLong\":\"-284643869501\"}}",
      "-62135596800000 | {\"$date\":{\"$numberLong\":\"-62135596800000\"}}",
      "9223372036854775807 | {\"$date\":{\"$numberLong\":\"9223372036854775807\"}}",
      "-9223372036854775808 | {\"$date\":{\"$numberLong\":\"-9223372036854775808\"}}",
  })
  void datesInYears1970To9999AreIsoStringsOthersAreMillis(long millis, String expected) {
    assertEquals(expected, render(new BsonDateTime(millis)));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "1.0 | 1.0",
      "-0 | -0",
      "0E-6176 | 0E-6176",
      "-0E+3 | -0E+3",
      "1E+6111 | 1E+6111",
      "1.000000000000000000000000000000000E+6144 | 1.000000000000000000000000000000000E+6144",
      "9.999999999999999999999999999999999E+6144 | 9.999999999999999999999999999999999E+6144",
      "1E-6176 | 1E-6176",
      "1234567890123456789012345678901234E-2 | 12345678901234567890123456789012.34",
      "NaN | NaN",
      "Infinity | Infinity",
      "-Infinity | -Infinity",
  })
  void decimalsAreNumberDecimalWrappers(String value, String text) {
    assertEquals("{\"$numberDecimal\":\"" + text + "\"}", render(new BsonDecimal128(Decimal128.parse(value))));
  }

  @Test
  void negativeNaNDecimalIsNaN() {
    assertEquals("{\"$numberDecimal\":\"NaN\"}", render(new BsonDecimal128(Decimal128.NEGATIVE_NaN)));
  }

  @Test
  void binaryOfEverySubtypeIsBase64WithTwoHexDigitSubtype() {
    byte[] data = HexFormat.of().parseHex("c8edabc3f7384ca3b68dab92a91478a3");
    String base64 = "yO2rw/c4TKO2jauSqRR4ow==";
    for (int subtype : new int[] {0x00, 0x01, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x80, 0xff}) {
      String hex = String.format("%02x", subtype);
      assertEquals("{\"$binary\":{\"base64\":\"" + base64 + "\",\"subType\":\"" + hex + "\"}}",
          render(new BsonBinary((byte) subtype, data)), "subtype " + hex);
    }
    assertEquals("{\"$binary\":{\"base64\":\"\",\"subType\":\"00\"}}", render(new BsonBinary(new byte[0])));
    assertEquals("{\"$binary\":{\"base64\":\"//8=\",\"subType\":\"00\"}}",
        render(new BsonBinary(new byte[] {-1, -1})));
    assertEquals("{\"$binary\":{\"base64\":\"MTIz\",\"subType\":\"80\"}}",
        render(new BsonBinary((byte) 0x80, "123".getBytes(StandardCharsets.US_ASCII))));
  }

  @Test
  void oldBinarySubtypeTwoShowsOnlyThePayload() {
    // BSON corpus "subtype 0x02": the inner length prefix is not part of the JSON.
    assertEquals("{\"$binary\":{\"base64\":\"//8=\",\"subType\":\"02\"}}",
        render(new BsonBinary((byte) 2, new byte[] {-1, -1})));
  }

  @Test
  void objectIdIsOidWrapper() {
    assertEquals("{\"$oid\":\"57e193d7a9cc81b4027498b5\"}",
        render(new BsonObjectId(new ObjectId("57e193d7a9cc81b4027498b5"))));
  }

  @Test
  void scalarsWithoutPayload() {
    assertEquals("true", render(BsonBoolean.TRUE));
    assertEquals("false", render(BsonBoolean.FALSE));
    assertEquals("null", render(BsonNull.VALUE));
    assertEquals("{\"$undefined\":true}", render(new BsonUndefined()));
    assertEquals("{\"$minKey\":1}", render(new BsonMinKey()));
    assertEquals("{\"$maxKey\":1}", render(new BsonMaxKey()));
  }

  @Test
  void regexOptionsAreSortedAlphabetically() {
    // The driver's BsonRegularExpression sorts options itself, so build the BSON by hand.
    RawBsonWriter w = new RawBsonWriter();
    int mark = w.startDocument();
    w.name(0x0B, "r").cstring(RawBsonWriter.utf8("a*b"));
    w.cstring(RawBsonWriter.utf8("xsmli"));
    w.endDocument(mark);
    assertEquals("{\"r\":{\"$regularExpression\":{\"pattern\":\"a*b\",\"options\":\"ilmsx\"}}}",
        renderer.render(w.toByteArray(), 0, w.size()));
    assertEquals("{\"$regularExpression\":{\"pattern\":\"foo*\",\"options\":\"ix\"}}",
        render(new BsonRegularExpression("foo*", "xi")));
    assertEquals("{\"$regularExpression\":{\"pattern\":\"\",\"options\":\"\"}}",
        render(new BsonRegularExpression("", "")));
    assertEquals("{\"$regularExpression\":{\"pattern\":\"a\\\\/\\\"b\",\"options\":\"\"}}",
        render(new BsonRegularExpression("a\\/\"b")));
  }

  @Test
  void deprecatedTypes() {
    assertEquals("{\"$dbPointer\":{\"$ref\":\"db.coll\",\"$id\":{\"$oid\":\"56e1fc72e0c917e9c4714161\"}}}",
        render(new BsonDbPointer("db.coll", new ObjectId("56e1fc72e0c917e9c4714161"))));
    assertEquals("{\"$symbol\":\"abc\"}", render(new BsonSymbol("abc")));
    assertEquals("{\"$code\":\"function() {}\"}", render(new BsonJavaScript("function() {}")));
    assertEquals("{\"$code\":\"function() {}\",\"$scope\":{}}",
        render(new BsonJavaScriptWithScope("function() {}", new BsonDocument())));
    assertEquals("{\"$code\":\"x\",\"$scope\":{\"x\":1,\"y\":{\"z\":[true]}}}",
        render(new BsonJavaScriptWithScope("x", new BsonDocument("x", new BsonInt32(1))
            .append("y", new BsonDocument("z", new BsonArray(java.util.List.of(BsonBoolean.TRUE)))))));
  }

  @Test
  void timestampsAreUnsigned() {
    assertEquals("{\"$timestamp\":{\"t\":123456789,\"i\":42}}", render(new BsonTimestamp(123456789, 42)));
    assertEquals("{\"$timestamp\":{\"t\":4294967295,\"i\":4294967295}}", render(new BsonTimestamp(-1L)));
    assertEquals("{\"$timestamp\":{\"t\":0,\"i\":0}}", render(new BsonTimestamp(0L)));
  }

  @Test
  void stringsAreEscapedPerJson() {
    assertEquals("\"\"", render(new BsonString("")));
    assertEquals("\"a\\\"b\\\\c\\/d\"".replace("\\/", "/"), render(new BsonString("a\"b\\c/d")));
    assertEquals("\"\\b\\f\\n\\r\\t\\u0001\\u001f\u007f\"", render(new BsonString("\b\f\n\r\t\u0001\u001f\u007f")));
    assertEquals("\"héllo wörld — ünïcödé 日本語 🎉\"", render(new BsonString("héllo wörld — ünïcödé 日本語 🎉")));
    assertEquals("\"\u2028\u2029\"", render(new BsonString("\u2028\u2029")));
  }

  @Test
  void documentsAndArrays() {
    assertEquals("{}", render(new BsonDocument()));
    assertEquals("[]", render(new BsonArray()));
    assertEquals("[1,\"a\",[],{}]", render(new BsonArray(java.util.List.of(
        new BsonInt32(1), new BsonString("a"), new BsonArray(), new BsonDocument()))));
  }

  @Test
  void emptyKeysAndKeysWithDotsAndDollars() {
    BsonDocument document = new BsonDocument("", new BsonInt32(1))
        .append("a.b", new BsonInt32(2))
        .append("$c", new BsonInt32(3))
        .append("x.$y", new BsonDocument("$z", new BsonInt32(4)).append("", new BsonInt32(5)));
    String json = render(document);
    assertEquals("{\"\":1,\"a.b\":2,\"$c\":3,\"x.$y\":{\"$z\":4,\"\":5}}", json);
  }

  @Test
  void deepNestingTwoHundredLevels() {
    BsonValue value = new BsonInt32(7);
    for (int i = 0; i < 200; i++) {
      value = i % 2 == 0 ? new BsonDocument("d" + i, value) : new BsonArray(java.util.List.of(value));
    }
    String json = render(value);
    assertEquals(200, json.chars().filter(c -> c == '{' || c == '[').count());
  }

  @Test
  void specExampleDocument() {
    BsonDocument document = BsonDocument.parse("""
        {"_id": {"$oid": "57e193d7a9cc81b4027498b5"},
         "String": "string", "Int32": 42, "Int64": {"$numberLong": "42"}, "Double": 42.42,
         "Decimal": {"$numberDecimal": "1234.5"},
         "Binary": {"$binary": {"base64": "yO2rw/c4TKO2jauSqRR4ow==", "subType": "04"}},
         "Subdocument": {"foo": "bar"}, "Array": [1, 2, 3, 4, 5],
         "Timestamp": {"$timestamp": {"t": 42, "i": 1}},
         "RegularExpression": {"$regularExpression": {"pattern": "foo*", "options": "xi"}},
         "DatetimeEpoch": {"$date": {"$numberLong": "0"}},
         "True": true, "False": false, "Minkey": {"$minKey": 1}, "Null": null}""");
    String json = renderer.render(new RawBsonDocument(document, new BsonDocumentCodec()));
    assertEquals("{\"_id\":{\"$oid\":\"57e193d7a9cc81b4027498b5\"},\"String\":\"string\",\"Int32\":42,"
        + "\"Int64\":42,\"Double\":42.42,\"Decimal\":{\"$numberDecimal\":\"1234.5\"},"
        + "\"Binary\":{\"$binary\":{\"base64\":\"yO2rw/c4TKO2jauSqRR4ow==\",\"subType\":\"04\"}},"
        + "\"Subdocument\":{\"foo\":\"bar\"},\"Array\":[1,2,3,4,5],"
        + "\"Timestamp\":{\"$timestamp\":{\"t\":42,\"i\":1}},"
        + "\"RegularExpression\":{\"$regularExpression\":{\"pattern\":\"foo*\",\"options\":\"ix\"}},"
        + "\"DatetimeEpoch\":{\"$date\":\"1970-01-01T00:00:00.000Z\"},"
        + "\"True\":true,\"False\":false,\"Minkey\":{\"$minKey\":1},\"Null\":null}", json);
  }

  @Test
  void agreesWithTheDriverOnEveryTypeAfterParsing() {
    BsonDocument document = new BsonDocument()
        .append("d", new BsonDouble(-0.0))
        .append("s", new BsonString("x\ny"))
        .append("doc", new BsonDocument("a", new BsonInt64(5_000_000_000L)))
        .append("bin", new BsonBinary((byte) 3, new byte[16]))
        .append("u", new BsonUndefined())
        .append("oid", new BsonObjectId(new ObjectId()))
        .append("date", new BsonDateTime(-5))
        .append("re", new BsonRegularExpression("^a", "mi"))
        .append("ptr", new BsonDbPointer("a.b", new ObjectId()))
        .append("js", new BsonJavaScript("1"))
        .append("sym", new BsonSymbol("s"))
        .append("jsws", new BsonJavaScriptWithScope("2", new BsonDocument("k", new BsonDouble(Double.NaN))))
        .append("ts", new BsonTimestamp(7, 8))
        .append("dec", new BsonDecimal128(Decimal128.parse("-1.50E-7")))
        .append("min", new BsonMinKey())
        .append("max", new BsonMaxKey());
    RawBsonDocument raw = new RawBsonDocument(document, new BsonDocumentCodec());
    BsonDocument fromDriver = parseWithDriver(new DriverJsonRenderer().render(raw));
    BsonDocument fromTranscoder = parseWithDriver(renderer.render(raw));
    for (String key : document.keySet()) {
      if (key.equals("ptr")) {
        // The driver writes a DBPointer as a DBRef-like {"$ref", "$id"} document, which reads
        // back as a document; the specification's {"$dbPointer": ...} reads back as a DBPointer.
        assertEquals(document.get(key), fromTranscoder.get(key), key);
        assertEquals(BsonDocument.class, fromDriver.get(key).getClass());
      } else {
        assertEquals(fromDriver.get(key), fromTranscoder.get(key), key);
      }
    }
  }

  @Test
  void nestedRawDocumentsAreRenderedInPlace() {
    RawBsonDocument outer = new RawBsonDocument(
        new BsonDocument("pad", new BsonString("xxxx")).append("inner", new BsonDocument("a", new BsonInt32(1))),
        new BsonDocumentCodec());
    RawBsonDocument inner = (RawBsonDocument) outer.get("inner");
    assertEquals("{\"a\":1}", renderer.render(inner));
    assertEquals("{\"a\":1}", new String(renderer.renderUtf8(inner), StandardCharsets.UTF_8));
  }
}
