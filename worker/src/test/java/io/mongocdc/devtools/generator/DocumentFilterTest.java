package io.mongocdc.devtools.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;

class DocumentFilterTest {

  private static boolean matches(String filter, String document) {
    return DocumentFilter.parse(BsonDocument.parse(filter)).matches(BsonDocument.parse(document));
  }

  @Test
  void equalityComparesNumbersByValueAndMatchesArrayElements() {
    assertTrue(matches("{}", "{a: 1}"));
    assertTrue(matches("{a: 1}", "{a: {$numberLong: '1'}}"));
    assertTrue(matches("{a: {$eq: 1.0}}", "{a: {$numberDecimal: '1.00'}}"));
    assertFalse(matches("{a: 1}", "{a: '1'}"));
    assertTrue(matches("{tags: 'x'}", "{tags: ['w', 'x']}"));
    assertTrue(matches("{a: {b: 1}}", "{a: {b: 1.0}}"));
    assertFalse(matches("{a: 1, b: 2}", "{a: 1, b: 3}"));
  }

  @Test
  void nullMatchesMissingAndNeMatchesMissing() {
    assertTrue(matches("{a: null}", "{b: 1}"));
    assertTrue(matches("{a: null}", "{a: null}"));
    assertFalse(matches("{a: null}", "{a: 0}"));
    assertTrue(matches("{a: {$ne: 1}}", "{b: 1}"));
    assertFalse(matches("{a: {$ne: 1}}", "{a: [0, 1]}"));
  }

  @Test
  void comparisonsStayWithinATypeBracket() {
    assertTrue(matches("{n: {$gt: 5}}", "{n: {$numberLong: '6'}}"));
    assertFalse(matches("{n: {$gt: 5}}", "{n: '6'}"));
    assertFalse(matches("{n: {$gt: 5}}", "{m: 6}"));
    assertTrue(matches("{n: {$gte: 5, $lt: 6}}", "{n: 5.5}"));
    assertFalse(matches("{n: {$gte: 5, $lt: 6}}", "{n: 6}"));
    assertTrue(matches("{n: {$lte: 'b'}}", "{n: 'ab'}"));
    assertFalse(matches("{n: {$lt: 1}}", "{n: {$numberDouble: 'NaN'}}"));
    assertTrue(matches("{n: {$lte: {$numberDouble: 'NaN'}}}", "{n: {$numberDouble: 'NaN'}}"));
  }

  @Test
  void inMatchesAnyListedValue() {
    assertTrue(matches("{s: {$in: ['a', 2]}}", "{s: 2.0}"));
    assertFalse(matches("{s: {$in: ['a', 2]}}", "{s: 'b'}"));
    assertTrue(matches("{s: {$in: [null]}}", "{}"));
  }

  @Test
  void anythingElseIsRejectedWithTheOffendingOperator() {
    assertEquals("unsupported operator $regex in snapshot filter {\"a\": {\"$regex\": \"x\"}} (supported: field equality,"
            + " $eq, $ne, $gt, $gte, $lt, $lte, $in)",
        assertThrows(IllegalArgumentException.class, () -> matches("{a: {$regex: 'x'}}", "{}")).getMessage());
    assertThrows(IllegalArgumentException.class, () -> matches("{$or: [{a: 1}]}", "{}"));
    assertThrows(IllegalArgumentException.class, () -> matches("{'a.b': 1}", "{}"));
    assertThrows(IllegalArgumentException.class, () -> matches("{a: /x/}", "{}"));
    assertThrows(IllegalArgumentException.class, () -> matches("{a: {$in: 1}}", "{}"));
    assertThrows(IllegalArgumentException.class, () -> matches("{a: {$not: {$gt: 1}}}", "{}"));
    assertThrows(IllegalArgumentException.class, () -> matches("{a: {$gt: {$lt: 1}}}", "{}"));
  }
}
