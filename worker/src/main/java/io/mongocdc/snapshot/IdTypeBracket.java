package io.mongocdc.snapshot;

import java.util.List;
import java.util.Optional;
import org.bson.BsonType;
import org.bson.BsonValue;

/**
 * MongoDB's comparison type brackets, in sort order. Values of different brackets never compare
 * in a query ({@code $gte: 5} matches only numbers), so a partition lies within one bracket and
 * names it with {@code $type}.
 *
 * <p>{@code _id} cannot be an array, a regular expression or undefined; those brackets exist so
 * that every BSON type has one and the "rest" partition's {@code $not $type} stays exhaustive.
 * Null and undefined share a bracket here because neither is ever split.
 */
public enum IdTypeBracket {
  MIN_KEY("minKey", false, "minKey"),
  NULL("null", false, "null", "undefined"),
  NUMBER("number", true, "double", "int", "long", "decimal"),
  STRING("string", true, "string", "symbol"),
  OBJECT("object", false, "object"),
  ARRAY("array", false, "array"),
  BIN_DATA("binData", true, "binData"),
  OBJECT_ID("objectId", true, "objectId"),
  BOOLEAN("bool", true, "bool"),
  DATE("date", true, "date"),
  TIMESTAMP("timestamp", true, "timestamp"),
  REGEX("regex", false, "regex"),
  DB_POINTER("dbPointer", false, "dbPointer"),
  JAVASCRIPT("javascript", false, "javascript"),
  JAVASCRIPT_WITH_SCOPE("javascriptWithScope", false, "javascriptWithScope"),
  MAX_KEY("maxKey", false, "maxKey");

  private final String label;
  private final boolean splittable;
  private final List<String> typeAliases;

  IdTypeBracket(String label, boolean splittable, String... typeAliases) {
    this.label = label;
    this.splittable = splittable;
    this.typeAliases = List.of(typeAliases);
  }

  /** The stable name used in stored ranges and log text. */
  public String label() {
    return label;
  }

  /** The {@code $type} aliases that together select exactly this bracket. */
  public List<String> typeAliases() {
    return typeAliases;
  }

  /**
   * True if {@link BsonIdOrder} orders this bracket the way the server does, so ranges with
   * bounds are safe. Objects, code and the single-valued brackets stay whole: a wrong order
   * there would lose documents, and {@code _id}s of those types are rare.
   */
  public boolean splittable() {
    return splittable;
  }

  public static IdTypeBracket of(BsonValue value) {
    return of(value.getBsonType());
  }

  public static IdTypeBracket of(BsonType type) {
    return switch (type) {
      case MIN_KEY -> MIN_KEY;
      case NULL, UNDEFINED -> NULL;
      case DOUBLE, INT32, INT64, DECIMAL128 -> NUMBER;
      case STRING, SYMBOL -> STRING;
      case DOCUMENT -> OBJECT;
      case ARRAY -> ARRAY;
      case BINARY -> BIN_DATA;
      case OBJECT_ID -> OBJECT_ID;
      case BOOLEAN -> BOOLEAN;
      case DATE_TIME -> DATE;
      case TIMESTAMP -> TIMESTAMP;
      case REGULAR_EXPRESSION -> REGEX;
      case DB_POINTER -> DB_POINTER;
      case JAVASCRIPT -> JAVASCRIPT;
      case JAVASCRIPT_WITH_SCOPE -> JAVASCRIPT_WITH_SCOPE;
      case MAX_KEY -> MAX_KEY;
      case END_OF_DOCUMENT -> throw new IllegalArgumentException("END_OF_DOCUMENT is not a value type");
    };
  }

  /** The bracket whose {@link #label} is {@code label}. */
  public static Optional<IdTypeBracket> byLabel(String label) {
    for (IdTypeBracket bracket : values()) {
      if (bracket.label.equals(label)) {
        return Optional.of(bracket);
      }
    }
    return Optional.empty();
  }
}
