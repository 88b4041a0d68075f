package io.mongocdc.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bson.BsonBinary;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonSymbol;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.Test;

class IdRangeTest {

  private static final BsonObjectId OID_A = new BsonObjectId(new ObjectId("654300000000000000000000"));
  private static final BsonObjectId OID_B = new BsonObjectId(new ObjectId("654400000000000000000000"));

  private static BsonDecimal128 dec(String text) {
    return new BsonDecimal128(Decimal128.parse(text));
  }

  @Test
  void filtersNameTheBracketByTypeAndBoundItWithGteAndLt() {
    assertEquals(BsonDocument.parse("{}"), IdRange.whole().toFilter());
    assertEquals(BsonDocument.parse("{_id: {$type: ['objectId']}}"), IdRange.of(IdTypeBracket.OBJECT_ID, null, null).toFilter());
    assertEquals(BsonDocument.parse("{_id: {$type: ['objectId'], $gte: {$oid: '654300000000000000000000'},"
        + " $lt: {$oid: '654400000000000000000000'}}}"), IdRange.of(IdTypeBracket.OBJECT_ID, OID_A, OID_B).toFilter());
    assertEquals(BsonDocument.parse("{_id: {$type: ['string', 'symbol'], $gte: 'm'}}"),
        IdRange.of(IdTypeBracket.STRING, new BsonString("m"), null).toFilter());
    assertEquals(BsonDocument.parse("{_id: {$type: ['string', 'symbol'], $lt: 'm'}}"),
        IdRange.of(IdTypeBracket.STRING, null, new BsonString("m")).toFilter());
    assertEquals(BsonDocument.parse("{_id: {$not: {$type: ['double', 'int', 'long', 'decimal', 'objectId']}}}"),
        IdRange.restOf(List.of(IdTypeBracket.OBJECT_ID, IdTypeBracket.NUMBER)).toFilter());
  }

  @Test
  void theFirstNumericRangeReachesNaNWhichTheServersLtNeverMatches() {
    IdRange first = IdRange.of(IdTypeBracket.NUMBER, null, new BsonInt32(10));
    assertEquals(BsonDocument.parse("{_id: {$type: ['double', 'int', 'long', 'decimal'], $not: {$gte: 10}}}"),
        first.toFilter());
    assertTrue(first.contains(new BsonDouble(Double.NaN)));
    assertTrue(ServerIdQuery.matches(first.toFilter(), new BsonDouble(Double.NaN)));
    assertTrue(ServerIdQuery.matches(first.toFilter(), dec("NaN")));
    assertFalse(ServerIdQuery.matches(first.toFilter(), new BsonInt64(10)));
    IdRange second = IdRange.of(IdTypeBracket.NUMBER, new BsonInt32(10), null);
    assertFalse(second.contains(new BsonDouble(Double.NaN)));
    assertFalse(ServerIdQuery.matches(second.toFilter(), new BsonDouble(Double.NaN)));
  }

  @Test
  void containsHonoursInclusiveLowerExclusiveUpperAndTheBracket() {
    IdRange range = IdRange.of(IdTypeBracket.NUMBER, new BsonInt32(1), new BsonDouble(2.5));
    assertTrue(range.contains(new BsonDouble(1.0)));
    assertTrue(range.contains(dec("2.4999999999999999999")));
    assertFalse(range.contains(dec("2.50")));
    assertFalse(range.contains(new BsonInt64(0)));
    assertFalse(range.contains(new BsonString("1.5")));
    IdRange rest = IdRange.restOf(List.of(IdTypeBracket.NUMBER));
    assertTrue(rest.contains(new BsonString("1.5")));
    assertFalse(rest.contains(new BsonInt32(7)));
    assertTrue(IdRange.whole().contains(new BsonInt32(7)));
    assertTrue(IdRange.of(IdTypeBracket.STRING, new BsonString("a"), null).contains(new BsonSymbol("b")));
  }

  @Test
  void containsAgreesWithTheServersReadingOfTheFilter() {
    Random random = new Random(11);
    List<IdRange> ranges = new ArrayList<>(List.of(IdRange.whole(),
        IdRange.restOf(List.of(IdTypeBracket.NUMBER, IdTypeBracket.STRING, IdTypeBracket.OBJECT)),
        IdRange.of(IdTypeBracket.OBJECT, null, null), IdRange.of(IdTypeBracket.OBJECT_ID, OID_A, OID_B)));
    for (int i = 0; i < 40; i++) {
      BsonValue a = RandomIds.mixed(random);
      BsonValue b = RandomIds.mixed(random);
      IdTypeBracket bracket = IdTypeBracket.of(a);
      if (!bracket.splittable() || IdTypeBracket.of(b) != bracket || BsonIdOrder.equal(a, b)
          || BsonIdOrder.isNaN(a) || BsonIdOrder.isNaN(b)) {
        continue;
      }
      BsonValue lo = BsonIdOrder.INSTANCE.compare(a, b) < 0 ? a : b;
      BsonValue hi = lo == a ? b : a;
      ranges.add(IdRange.of(bracket, lo, hi));
      ranges.add(IdRange.of(bracket, null, hi));
      ranges.add(IdRange.of(bracket, lo, null));
    }
    List<BsonValue> ids = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      ids.add(RandomIds.mixed(random));
    }
    ids.add(new BsonDouble(Double.NaN));
    for (IdRange range : ranges) {
      for (BsonValue id : ids) {
        assertEquals(range.contains(id), ServerIdQuery.matches(range.toFilter(), id), range.describe() + " / " + id);
      }
    }
  }

  @Test
  void rangesThatCannotBeReadFaithfullyAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> IdRange.of(IdTypeBracket.NUMBER, new BsonDouble(Double.NaN), null));
    assertThrows(IllegalArgumentException.class, () -> IdRange.of(IdTypeBracket.NUMBER, null, dec("NaN")));
    assertThrows(IllegalArgumentException.class, () -> IdRange.of(IdTypeBracket.NUMBER, new BsonInt32(2), new BsonInt64(2)));
    assertThrows(IllegalArgumentException.class, () -> IdRange.of(IdTypeBracket.NUMBER, new BsonInt32(3), new BsonInt64(2)));
    assertThrows(IllegalArgumentException.class, () -> IdRange.of(IdTypeBracket.STRING, new BsonInt32(1), null));
    assertThrows(IllegalArgumentException.class,
        () -> IdRange.of(IdTypeBracket.OBJECT, new BsonDocument("a", new BsonInt32(1)), null));
    assertThrows(IllegalArgumentException.class, () -> new IdRange(null, new BsonInt32(1), null, List.of()));
  }

  @Test
  void jsonRoundTripsKeepEveryBoundsTypeAndValue() {
    List<IdRange> ranges = List.of(IdRange.whole(),
        IdRange.restOf(List.of(IdTypeBracket.STRING, IdTypeBracket.NUMBER, IdTypeBracket.OBJECT_ID)),
        IdRange.restOf(List.of()),
        IdRange.of(IdTypeBracket.OBJECT_ID, OID_A, OID_B),
        IdRange.of(IdTypeBracket.NUMBER, new BsonInt64(Long.MAX_VALUE - 1), new BsonInt64(Long.MAX_VALUE)),
        IdRange.of(IdTypeBracket.NUMBER, new BsonInt32(-1), new BsonInt64(1)),
        IdRange.of(IdTypeBracket.NUMBER, dec("-0"), dec("1.000E-6100")),
        IdRange.of(IdTypeBracket.NUMBER, dec("1.10"), dec("1.234567890123456789012345678901234E+6000")),
        IdRange.of(IdTypeBracket.NUMBER, new BsonDouble(-0.0), new BsonDouble(0.1)),
        IdRange.of(IdTypeBracket.NUMBER, new BsonDouble(Double.NEGATIVE_INFINITY), new BsonDouble(Double.POSITIVE_INFINITY)),
        IdRange.of(IdTypeBracket.STRING, new BsonString("caf\u00e9 \u4e2d\uD83D\uDE00"), new BsonString("z\u0000\"\\\n")),
        IdRange.of(IdTypeBracket.BIN_DATA, new BsonBinary((byte) 4, new byte[] {1, 2}), null),
        IdRange.of(IdTypeBracket.DATE, new BsonDateTime(-5), new BsonDateTime(Long.MAX_VALUE)),
        IdRange.of(IdTypeBracket.TIMESTAMP, null, new BsonTimestamp(0x80000001, 7)),
        IdRange.of(IdTypeBracket.OBJECT, null, null));
    for (IdRange range : ranges) {
      IdRange back = IdRange.fromJson(range.toJson());
      assertEquals(range, back, range.toJson());
      assertEquals(range.toFilter(), back.toFilter());
      assertEquals(range.toJson(), back.toJson());
      if (range.lower() != null) {
        assertEquals(range.lower().getBsonType(), back.lower().getBsonType());
      }
    }
    // Decimal128 keeps its exponent and negative zero its sign (equals compares the encoding).
    IdRange decimals = IdRange.fromJson(ranges.get(6).toJson());
    assertEquals(Decimal128.parse("-0"), decimals.lower().asDecimal128().getValue());
    assertTrue(Double.doubleToRawLongBits(IdRange.fromJson(ranges.get(8).toJson()).lower().asDouble().getValue()) < 0);
  }

  @Test
  void symbolBoundsAreStoredAsStrings() {
    IdRange range = IdRange.of(IdTypeBracket.STRING, new BsonSymbol("k"), null);
    assertEquals(new BsonString("k"), range.lower());
    assertEquals(range, IdRange.fromJson(range.toJson()));
  }

  @Test
  void garbageIsNotARange() {
    assertThrows(IllegalArgumentException.class, () -> IdRange.fromJson("not json"));
    assertThrows(IllegalArgumentException.class, () -> IdRange.fromJson("{\"kind\": \"sideways\"}"));
    assertThrows(IllegalArgumentException.class, () -> IdRange.fromJson("{\"kind\": \"bracket\", \"bracket\": \"NUMBER\"}"));
    assertThrows(IllegalArgumentException.class,
        () -> IdRange.fromJson("{\"kind\": \"bracket\", \"bracket\": \"number\", \"lower\": \"a\"}"));
  }

  @Test
  void descriptionsAreShortAndSayWhatIsRead() {
    assertEquals("all _ids", IdRange.whole().describe());
    assertEquals("objectId [654300000000000000000000, 654400000000000000000000)",
        IdRange.of(IdTypeBracket.OBJECT_ID, OID_A, OID_B).describe());
    assertEquals("number [.., 10)", IdRange.of(IdTypeBracket.NUMBER, null, new BsonInt32(10)).describe());
    assertEquals("string [\"m\", ..)", IdRange.of(IdTypeBracket.STRING, new BsonString("m"), null).describe());
    assertEquals("object (all)", IdRange.of(IdTypeBracket.OBJECT, null, null).describe());
    assertEquals("_ids not of type number, objectId",
        IdRange.restOf(List.of(IdTypeBracket.OBJECT_ID, IdTypeBracket.NUMBER)).describe());
    assertTrue(IdRange.of(IdTypeBracket.STRING, new BsonString("x".repeat(500)), null).describe().length() < 60);
  }
}
