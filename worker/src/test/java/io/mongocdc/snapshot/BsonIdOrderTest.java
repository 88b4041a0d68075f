package io.mongocdc.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.bson.BsonBinary;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonMaxKey;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonRegularExpression;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

/** The comparator against MongoDB's documented comparison/sort order. */
class BsonIdOrderTest {

  private static final BsonIdOrder ORDER = BsonIdOrder.INSTANCE;

  private static BsonDecimal128 dec(String text) {
    return new BsonDecimal128(Decimal128.parse(text));
  }

  private static void assertAscending(BsonValue... values) {
    for (int i = 0; i + 1 < values.length; i++) {
      assertTrue(ORDER.compare(values[i], values[i + 1]) < 0, values[i] + " should sort before " + values[i + 1]);
      assertTrue(ORDER.compare(values[i + 1], values[i]) > 0, values[i + 1] + " should sort after " + values[i]);
    }
  }

  private static void assertSame(BsonValue a, BsonValue b) {
    assertEquals(0, ORDER.compare(a, b), a + " and " + b + " are the same _id to the server");
    assertEquals(0, ORDER.compare(b, a), b + " and " + a + " are the same _id to the server");
  }

  @Test
  void bracketsSortInTheDocumentedOrder() {
    List<BsonValue> expected = List.of(new BsonMinKey(), BsonNull.VALUE, new BsonInt32(5), new BsonString("a"),
        new BsonDocument("a", new BsonInt32(1)), new org.bson.BsonArray(List.of(new BsonInt32(1))),
        new BsonBinary(new byte[] {1}), new BsonObjectId(new ObjectId("000000000000000000000000")),
        BsonBoolean.FALSE, new BsonDateTime(0), new BsonTimestamp(0), new BsonRegularExpression("a"),
        new BsonJavaScript("f()"), new BsonMaxKey());
    List<BsonValue> shuffled = new ArrayList<>(expected);
    Collections.shuffle(shuffled, new Random(1));
    shuffled.sort(ORDER);
    assertEquals(expected, shuffled);
  }

  @Test
  void numbersOfEveryTypeAreEqualByValue() {
    assertSame(new BsonInt32(1), new BsonInt64(1));
    assertSame(new BsonInt32(1), new BsonDouble(1.0));
    assertSame(new BsonInt64(1), dec("1.000"));
    assertSame(new BsonDouble(-0.0), new BsonInt32(0));
    assertSame(dec("-0"), new BsonDouble(0.0));
    assertSame(new BsonDouble(Double.NaN), dec("NaN"));
    assertSame(new BsonDouble(Double.POSITIVE_INFINITY), dec("Infinity"));
  }

  @Test
  void nanSortsBelowEveryNumberAndInfinitiesBoundTheRest() {
    assertAscending(new BsonDouble(Double.NaN), new BsonDouble(Double.NEGATIVE_INFINITY), dec("-1E+400"),
        new BsonInt64(Long.MIN_VALUE), new BsonDouble(-0.5), new BsonInt32(0), dec("1E-6000"),
        new BsonInt64(Long.MAX_VALUE), new BsonDouble(Double.MAX_VALUE), dec("1E+400"),
        new BsonDouble(Double.POSITIVE_INFINITY));
    assertAscending(dec("NaN"), dec("-Infinity"));
  }

  @Test
  void bigLongsAreNotRoundedThroughDoubles() {
    // Both longs round to the same double 2^63, which is above either.
    assertAscending(new BsonInt64(Long.MAX_VALUE - 1), new BsonInt64(Long.MAX_VALUE), new BsonDouble(0x1p63));
    assertAscending(new BsonDouble(0x1p53), new BsonInt64((1L << 53) + 1), new BsonDouble(0x1p53 + 2));
    assertAscending(new BsonInt64((1L << 53) + 1), dec("9007199254740993.5"));
  }

  @Test
  void decimalsAndDoublesCompareByExactValue() {
    // The double nearest 0.1 is 0.1000000000000000055511151231257827...
    assertAscending(dec("0.1"), new BsonDouble(0.1), dec("0.1000000000000000055511151231257828"));
    assertAscending(dec("0.1000000000000000055511151231257827"), new BsonDouble(0.1));
  }

  @Test
  void stringsCompareByUtf8BytesNotByLocaleOrUtf16() {
    assertAscending(new BsonString(""), new BsonString("Z"), new BsonString("a"), new BsonString("ab"),
        new BsonString("b"), new BsonString("é"), new BsonString("\uFFFD"), new BsonString("\uD83D\uDE00"));
    // String.compareTo puts U+1F600 (surrogates D83D..) before U+FFFD; UTF-8 bytes do not.
    assertTrue("\uD83D\uDE00".compareTo("\uFFFD") < 0);
    assertSame(new BsonSymbol("abc"), new BsonString("abc"));
    assertAscending(new BsonSymbol("abc"), new BsonString("abd"));
  }

  @Test
  void objectIdsCompareByUnsignedBytes() {
    assertAscending(new BsonObjectId(new ObjectId("7fffffff0000000000000000")),
        new BsonObjectId(new ObjectId("800000000000000000000000")),
        new BsonObjectId(new ObjectId("800000000000000000000001")),
        new BsonObjectId(new ObjectId("ffffffffffffffffffffffff")));
  }

  @Test
  void binDataComparesByLengthThenSubtypeThenBytes() {
    assertAscending(new BsonBinary((byte) 0x80, new byte[] {(byte) 0xFF}),
        new BsonBinary((byte) 0, new byte[] {0, 0}),
        new BsonBinary((byte) 0, new byte[] {0, (byte) 0x80}),
        new BsonBinary((byte) 4, new byte[] {0, 0}),
        new BsonBinary((byte) 0x80, new byte[] {0, 0}));
  }

  @Test
  void booleansDatesAndTimestamps() {
    assertAscending(BsonBoolean.FALSE, BsonBoolean.TRUE);
    assertAscending(new BsonDateTime(-1), new BsonDateTime(0), new BsonDateTime(Long.MAX_VALUE));
    // Timestamps are unsigned: seconds with the top bit set are later, not earlier.
    assertAscending(new BsonTimestamp(1, 0), new BsonTimestamp(1, 5), new BsonTimestamp(0x7FFFFFFF, 0),
        new BsonTimestamp(0x80000000, 0));
  }

  @Test
  void embeddedDocumentsCompareFieldByField() {
    assertSame(new BsonDocument("a", new BsonInt32(1)), new BsonDocument("a", new BsonDouble(1.0)));
    assertAscending(new BsonDocument(), new BsonDocument("a", new BsonInt32(1)),
        new BsonDocument("a", new BsonInt32(1)).append("b", new BsonInt32(0)),
        new BsonDocument("a", new BsonInt32(2)), new BsonDocument("b", new BsonInt32(0)),
        new BsonDocument("a", new BsonString("x")));
  }

  /** Exact numeric order against a BigDecimal oracle, and the comparator's contract, over random numbers. */
  @Test
  void numbersOrderLikeTheirExactValuesOverRandomValues() {
    Random random = new Random(42);
    List<BsonValue> values = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      values.add(RandomIds.number(random));
    }
    values.add(new BsonInt64(Long.MAX_VALUE));
    values.add(new BsonDouble(0x1p63));
    for (BsonValue a : values) {
      for (BsonValue b : values) {
        int expected = Integer.signum(exact(a).compareTo(exact(b)));
        assertEquals(expected, Integer.signum(ORDER.compare(a, b)), a + " vs " + b);
      }
    }
  }

  private static BigDecimal exact(BsonValue number) {
    return switch (number.getBsonType()) {
      case INT32 -> BigDecimal.valueOf(number.asInt32().getValue());
      case INT64 -> BigDecimal.valueOf(number.asInt64().getValue());
      case DOUBLE -> new BigDecimal(number.asDouble().getValue());
      default -> number.asDecimal128().getValue().bigDecimalValue();
    };
  }

  @Test
  void theComparatorIsATotalOrderOverMixedIds() {
    Random random = new Random(7);
    List<BsonValue> values = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      values.add(RandomIds.mixed(random));
    }
    for (BsonValue a : values) {
      for (BsonValue b : values) {
        assertEquals(Integer.signum(ORDER.compare(a, b)), -Integer.signum(ORDER.compare(b, a)));
        for (BsonValue c : values.subList(0, 30)) {
          if (ORDER.compare(a, b) <= 0 && ORDER.compare(b, c) <= 0) {
            assertTrue(ORDER.compare(a, c) <= 0, a + " <= " + b + " <= " + c);
          }
        }
      }
    }
  }
}
