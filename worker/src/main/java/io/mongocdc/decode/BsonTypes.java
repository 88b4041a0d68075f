package io.mongocdc.decode;

import org.bson.BsonType;

/** BSON type names as MongoDB's {@code $type} spells them, for operators reading drift. */
final class BsonTypes {

  private BsonTypes() {}

  static String name(BsonType type) {
    return switch (type) {
      case DOUBLE -> "double";
      case STRING -> "string";
      case DOCUMENT -> "object";
      case ARRAY -> "array";
      case BINARY -> "binData";
      case UNDEFINED -> "undefined";
      case OBJECT_ID -> "objectId";
      case BOOLEAN -> "bool";
      case DATE_TIME -> "date";
      case NULL -> "null";
      case REGULAR_EXPRESSION -> "regex";
      case DB_POINTER -> "dbPointer";
      case JAVASCRIPT -> "javascript";
      case SYMBOL -> "symbol";
      case JAVASCRIPT_WITH_SCOPE -> "javascriptWithScope";
      case INT32 -> "int";
      case TIMESTAMP -> "timestamp";
      case INT64 -> "long";
      case DECIMAL128 -> "decimal";
      case MIN_KEY -> "minKey";
      case MAX_KEY -> "maxKey";
      case END_OF_DOCUMENT -> "end";
    };
  }
}
