package io.mongocdc.snapshot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.bson.BsonType;
import org.junit.jupiter.api.Test;

class IdTypeBracketTest {

  @Test
  void everyValueTypeHasABracketAndEveryTypeAliasBelongsToExactlyOne() {
    Set<String> aliases = new HashSet<>();
    for (IdTypeBracket bracket : IdTypeBracket.values()) {
      for (String alias : bracket.typeAliases()) {
        assertTrue(aliases.add(alias), alias + " is listed twice");
      }
    }
    // The $type aliases of every BSON value type MongoDB knows.
    assertEquals(Set.of("double", "string", "object", "array", "binData", "undefined", "objectId", "bool", "date",
        "null", "regex", "dbPointer", "javascript", "symbol", "javascriptWithScope", "int", "timestamp", "long",
        "decimal", "minKey", "maxKey"), aliases);
    for (BsonType type : BsonType.values()) {
      if (type != BsonType.END_OF_DOCUMENT) {
        IdTypeBracket.of(type);
      }
    }
  }

  @Test
  void numericTypesShareOneBracketAndSymbolsGoWithStrings() {
    for (BsonType t : List.of(BsonType.INT32, BsonType.INT64, BsonType.DOUBLE, BsonType.DECIMAL128)) {
      assertEquals(IdTypeBracket.NUMBER, IdTypeBracket.of(t));
    }
    assertEquals(IdTypeBracket.STRING, IdTypeBracket.of(BsonType.SYMBOL));
    assertEquals(IdTypeBracket.NULL, IdTypeBracket.of(BsonType.UNDEFINED));
    assertEquals(IdTypeBracket.DATE, IdTypeBracket.of(BsonType.DATE_TIME));
    assertTrue(IdTypeBracket.DATE.ordinal() < IdTypeBracket.TIMESTAMP.ordinal());
  }

  @Test
  void onlyBracketsWithAServerFaithfulOrderAreSplittable() {
    assertTrue(IdTypeBracket.OBJECT_ID.splittable());
    assertTrue(IdTypeBracket.NUMBER.splittable());
    assertTrue(IdTypeBracket.STRING.splittable());
    assertFalse(IdTypeBracket.OBJECT.splittable());
    assertFalse(IdTypeBracket.MIN_KEY.splittable());
    assertFalse(IdTypeBracket.NULL.splittable());
  }

  @Test
  void labelsAreUniqueAndFindTheirBracket() {
    for (IdTypeBracket bracket : IdTypeBracket.values()) {
      assertEquals(bracket, IdTypeBracket.byLabel(bracket.label()).orElseThrow());
    }
    assertTrue(IdTypeBracket.byLabel("NUMBER").isEmpty());
  }
}
