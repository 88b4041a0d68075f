package io.mongocdc.decode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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

/** _id key text is injective under MongoDB's equality (docs/id-keys.md). */
class IdKeyRendererTest {

  private final IdKeyRenderer keys = new IdKeyRenderer();

  private static BsonDecimal128 dec(String s) {
    return new BsonDecimal128(Decimal128.parse(s));
  }

  private static RawBsonDocument raw(BsonDocument document) {
    return new RawBsonDocument(document, new BsonDocumentCodec());
  }

  /** Renders both directly and from the bytes of {@code {_id: value}}, which must agree. */
  private String key(BsonValue id) {
    String direct = keys.render(id);
    assertEquals(direct, keys.renderIdOf(raw(new BsonDocument("_id", id))), "raw and decoded paths disagree");
    assertFalse(direct.indexOf('\u0000') >= 0, "key text must not contain NUL");
    return direct;
  }

  @Test
  void readableFormsOfTheCommonTypes() {
    assertEquals("57e193d7a9cc81b4027498b5", key(new BsonObjectId(new ObjectId("57e193d7a9cc81b4027498b5"))));
    assertEquals("\"abc\"", key(new BsonString("abc")));
    assertEquals("\"a\\\"b\\\\c\\u0000\\u000a\"", key(new BsonString("a\"b\\c\u0000\n")));
    assertEquals("1", key(new BsonInt32(1)));
    assertEquals("-42", key(new BsonInt64(-42)));
    assertEquals("1.5", key(new BsonDouble(1.5)));
    assertEquals("null", key(BsonNull.VALUE));
    assertEquals("{\"a\":1,\"b\":\"x\"}", key(new BsonDocument("a", new BsonInt32(1)).append("b", new BsonString("x"))));
    assertEquals("[1,\"x\",null]", key(new BsonArray(List.of(new BsonInt32(1), new BsonString("x"), BsonNull.VALUE))));
    assertEquals("Date(2012-12-24T12:15:30.501Z)", key(new BsonDateTime(1_356_351_330_501L)));
    assertEquals("Timestamp(42,1)", key(new BsonTimestamp(42, 1)));
    assertEquals("BinData(4,\"AAECAwQFBgcICQoLDA0ODw==\")",
        key(new BsonBinary((byte) 4, new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})));
    assertEquals("1E+6111", key(dec("1E+6111")));
    assertEquals("1.5E-20", key(dec("1.50E-20")));
    assertEquals("NaN", key(new BsonDouble(Double.NaN)));
    assertEquals("-Infinity", key(dec("-Infinity")));
    assertEquals("MinKey", key(new BsonMinKey()));
    assertEquals("MaxKey", key(new BsonMaxKey()));
  }

  @Test
  void numericallyEqualValuesOfEveryTypeGiveTheSameKey() {
    assertAllSame(new BsonInt32(1), new BsonInt64(1), new BsonDouble(1.0), dec("1"), dec("1.0"), dec("1.000"),
        dec("0.1E+1"), dec("100E-2"));
    assertAllSame(new BsonInt32(0), new BsonInt64(0), new BsonDouble(0.0), new BsonDouble(-0.0), dec("0"), dec("-0"),
        dec("0E-6176"), dec("-0E+6111"));
    assertAllSame(new BsonDouble(Double.NaN), new BsonDouble(Double.longBitsToDouble(0x7ff8000000000001L)),
        dec("NaN"), dec("-NaN"));
    assertAllSame(new BsonDouble(Double.POSITIVE_INFINITY), dec("Infinity"));
    assertAllSame(new BsonInt64(Long.MIN_VALUE), new BsonDouble(-9.223372036854775808E18), dec("-9223372036854775808"));
    assertAllSame(new BsonDouble(0.5), dec("0.5"), dec("0.50000"));
    assertAllSame(new BsonInt64(1L << 53), new BsonDouble(9007199254740992.0), dec("9007199254740992"));
    assertAllSame(new BsonDouble(1e20), dec("1E+20"), dec("100000000000000000000"));
  }

  @Test
  void differentValuesGiveDifferentKeys() {
    ObjectId oid = new ObjectId("57e193d7a9cc81b4027498b5");
    assertAllDifferent(
        new BsonObjectId(oid), new BsonString(oid.toHexString()),
        new BsonInt64(9_007_199_254_740_993L), new BsonDouble(9_007_199_254_740_992.0),
        new BsonInt64(Long.MAX_VALUE), new BsonDouble(9.223372036854775807E18),
        new BsonDouble(0.1), dec("0.1"), dec("0.1000000000000000055511151231257827"),
        new BsonString("1"), new BsonInt32(1),
        BsonNull.VALUE, new BsonString("null"), new BsonUndefined(),
        new BsonDateTime(0), new BsonTimestamp(0L), new BsonInt32(0), new BsonString("0"),
        BsonBoolean.TRUE, new BsonString("true"), new BsonInt32(2),
        new BsonBinary((byte) 0, new byte[] {1}), new BsonBinary((byte) 4, new byte[] {1}),
        new BsonRegularExpression("a", "i"), new BsonRegularExpression("a"), new BsonString("/a/i"),
        new BsonJavaScript("a"), new BsonString("a"), new BsonJavaScriptWithScope("a", new BsonDocument()),
        new BsonDbPointer("a", oid), new BsonMinKey(), new BsonMaxKey(), new BsonString("MinKey"),
        new BsonDocument(), new BsonArray(), new BsonString("{}"), new BsonString("[]"),
        new BsonString("a\u0000"), new BsonString("a\u2400"), new BsonString("\\u0000"),
        new BsonDouble(Double.NaN), new BsonString("NaN"), new BsonDouble(Double.NEGATIVE_INFINITY),
        new BsonDouble(1e-7), new BsonDouble(1.0000000000000002), dec("1.000000000000000000000000000000001"),
        new BsonDouble(1e20), new BsonDouble(1e21), new BsonString("1E+21"));
  }

  @Test
  void fieldOrderAndNamesMatterInDocuments() {
    BsonDocument ab = new BsonDocument("a", new BsonInt32(1)).append("b", new BsonInt32(2));
    BsonDocument ba = new BsonDocument("b", new BsonInt32(2)).append("a", new BsonInt32(1));
    BsonDocument abDouble = new BsonDocument("a", new BsonDouble(1.0)).append("b", new BsonInt64(2));
    assertNotEquals(key(ab), key(ba));
    assertEquals(key(ab), key(abDouble));
    assertEquals(key(ab), key(raw(abDouble)));
    assertAllDifferent(
        new BsonDocument("a", new BsonString("b,\"c\":1")),
        new BsonDocument("a", new BsonString("b")).append("c", new BsonInt32(1)),
        new BsonDocument("a\":\"b", new BsonInt32(1)),
        new BsonDocument("a", new BsonDocument("b", new BsonInt32(1))),
        new BsonDocument("a.b", new BsonInt32(1)),
        new BsonDocument("$a", new BsonInt32(1)),
        new BsonDocument("", new BsonInt32(1)));
  }

  @Test
  void nullIsALegalKey() {
    assertEquals("null", keys.render(BsonNull.VALUE));
    assertEquals("null", keys.renderIdOf(raw(new BsonDocument("_id", BsonNull.VALUE).append("x", new BsonInt32(1)))));
  }

  @Test
  void missingIdIsAClearError() {
    DocumentRenderException e = assertThrows(DocumentRenderException.class,
        () -> keys.renderIdOf(raw(new BsonDocument("x", new BsonInt32(1)))));
    assertTrue(e.getMessage().contains("no _id"), e.getMessage());
  }

  @Test
  void illFormedUtf8StaysDistinctWhenReadFromBytes() {
    byte[] bad = idDocument(new byte[] {'a', (byte) 0xff});
    byte[] worse = idDocument(new byte[] {'a', (byte) 0xfe});
    String badKey = keys.renderIdOf(new RawBsonDocument(bad));
    assertEquals("\"a\\xff\"", badKey);
    assertNotEquals(badKey, keys.renderIdOf(new RawBsonDocument(worse)));
    assertNotEquals(badKey, key(new BsonString("a\uFFFD")));
    assertNotEquals(badKey, key(new BsonString("a\\xff")));
  }

  @Test
  void symbolEqualsStringWithTheSameText() {
    assertEquals(key(new BsonString("abc")), key(new BsonSymbol("abc")));
  }

  /**
   * Random _ids drawn from a small domain so that many are equal: the key texts are equal
   * exactly when an independent model of MongoDB's comparison says the values are.
   */
  @Test
  void keysAreEqualExactlyWhenMongoDbEqualityHolds() {
    Random random = new Random(11);
    List<BsonValue> ids = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      ids.add(randomId(random, 2));
    }
    Map<BsonValue, String> texts = new HashMap<>();
    for (BsonValue id : ids) {
      texts.put(id, key(id));
    }
    int equalPairs = 0;
    for (int i = 0; i < ids.size(); i++) {
      for (int j = i + 1; j < ids.size(); j++) {
        boolean equal = MongoEquality.equal(ids.get(i), ids.get(j));
        equalPairs += equal ? 1 : 0;
        assertEquals(equal, texts.get(ids.get(i)).equals(texts.get(ids.get(j))),
            ids.get(i) + " vs " + ids.get(j) + ": " + texts.get(ids.get(i)) + " / " + texts.get(ids.get(j)));
      }
    }
    assertTrue(equalPairs > 1000, "the domain should produce many equal pairs, got " + equalPairs);
  }

  private static BsonValue randomId(Random random, int depth) {
    String[] decimals = {"1", "1.0", "0.5", "-0", "0", "NaN", "Infinity", "0.1", "9007199254740993", "1E+2"};
    double[] doubles = {1.0, 0.5, -0.0, 0.0, Double.NaN, Double.POSITIVE_INFINITY, 0.1, 9007199254740992.0, 100.0};
    long[] longs = {1, 0, 9_007_199_254_740_993L, 9_007_199_254_740_992L, 100, -1};
    String[] strings = {"1", "a", "57e193d7a9cc81b4027498b5", "", "null", "a\u0000"};
    int kind = random.nextInt(depth > 0 ? 12 : 10);
    return switch (kind) {
      case 0 -> new BsonInt32((int) longs[random.nextInt(2)] + random.nextInt(2));
      case 1 -> new BsonInt64(longs[random.nextInt(longs.length)]);
      case 2 -> new BsonDouble(doubles[random.nextInt(doubles.length)]);
      case 3 -> dec(decimals[random.nextInt(decimals.length)]);
      case 4 -> new BsonString(strings[random.nextInt(strings.length)]);
      case 5 -> new BsonSymbol(strings[random.nextInt(strings.length)]);
      case 6 -> new BsonObjectId(new ObjectId("57e193d7a9cc81b4027498b" + random.nextInt(2)));
      case 7 -> random.nextBoolean() ? BsonNull.VALUE : BsonBoolean.valueOf(random.nextBoolean());
      case 8 -> random.nextBoolean() ? new BsonDateTime(random.nextInt(2)) : new BsonTimestamp(random.nextInt(2), 0);
      case 9 -> new BsonBinary((byte) random.nextInt(2), new byte[] {(byte) random.nextInt(2)});
      case 10 -> {
        BsonDocument document = new BsonDocument();
        String[] names = {"a", "b"};
        int n = random.nextInt(3);
        for (int i = 0; i < n; i++) {
          document.put(names[random.nextInt(2)], randomId(random, depth - 1));
        }
        yield document;
      }
      default -> {
        BsonArray array = new BsonArray();
        for (int i = random.nextInt(3); i > 0; i--) {
          array.add(randomId(random, depth - 1));
        }
        yield array;
      }
    };
  }

  private static byte[] idDocument(byte[] stringContent) {
    RawBsonWriter w = new RawBsonWriter();
    int mark = w.startDocument();
    w.name(0x02, "_id").string(stringContent);
    w.endDocument(mark);
    return w.toByteArray();
  }

  private void assertAllSame(BsonValue... values) {
    String first = key(values[0]);
    for (BsonValue value : values) {
      assertEquals(first, key(value), value.toString());
    }
  }

  private void assertAllDifferent(BsonValue... values) {
    Map<String, BsonValue> seen = new HashMap<>();
    for (BsonValue value : values) {
      BsonValue previous = seen.put(key(value), value);
      assertEquals(null, previous, "same key for " + previous + " and " + value + ": " + key(value));
    }
  }
}
