package io.mongocdc.suggest;

import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonValue;

/**
 * What one value at a path is, as far as a typed column cares: the BSON type, with binary
 * subtype 4 told apart as a UUID and arrays told apart by what they hold. Named as MongoDB's
 * {@code $type} operator names the types, so the table reads like the shell.
 */
public enum ValueKind {
  STRING("string"),
  INT("int"),
  LONG("long"),
  DOUBLE("double"),
  DECIMAL("decimal"),
  BOOL("bool"),
  DATE("date"),
  OBJECT_ID("objectId"),
  UUID("uuid"),
  BINARY("binData"),
  NULL("null"),
  DOCUMENT("object"),
  /** A non-empty array whose elements are all strings (or null). */
  STRING_ARRAY("array of strings"),
  EMPTY_ARRAY("empty array"),
  /** Any other array: of numbers, documents, or mixed. */
  ARRAY("array"),
  /** Timestamp, regex, JavaScript, symbol, minKey, maxKey, DBPointer, undefined. */
  OTHER("other");

  private final String label;

  ValueKind(String label) {
    this.label = label;
  }

  /** The name the table prints. */
  public String label() {
    return label;
  }

  public static ValueKind of(BsonValue value) {
    return switch (value.getBsonType()) {
      case STRING -> STRING;
      case INT32 -> INT;
      case INT64 -> LONG;
      case DOUBLE -> DOUBLE;
      case DECIMAL128 -> DECIMAL;
      case BOOLEAN -> BOOL;
      case DATE_TIME -> DATE;
      case OBJECT_ID -> OBJECT_ID;
      case BINARY -> isUuid(value.asBinary()) ? UUID : BINARY;
      case NULL -> NULL;
      case DOCUMENT -> DOCUMENT;
      case ARRAY -> ofArray(value.asArray());
      default -> OTHER;
    };
  }

  private static boolean isUuid(BsonBinary binary) {
    // Subtype 4 is the standard UUID; 16 bytes is what PostgreSQL's uuid holds.
    return binary.getType() == BsonBinarySubType.UUID_STANDARD.getValue() && binary.getData().length == 16;
  }

  private static ValueKind ofArray(BsonArray array) {
    if (array.isEmpty()) {
      return EMPTY_ARRAY;
    }
    boolean anyString = false;
    for (BsonValue element : array) {
      if (element.isString()) {
        anyString = true;
      } else if (!element.isNull()) {
        return ARRAY;
      }
    }
    return anyString ? STRING_ARRAY : ARRAY;
  }
}
