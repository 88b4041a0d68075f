package io.mongocdc.snapshot;

import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonType;
import org.bson.BsonValue;

/**
 * A model of how the server evaluates the {@code _id} filters {@link IdRange#toFilter} emits:
 * {@code $type} by alias, {@code $gte}/{@code $lt} only within a type bracket and never true
 * for NaN (ComparisonMatchExpressionBase: "NaN is equal to NaN but otherwise always compares to
 * false"), {@code $not} as negation. Rejects every other operator, so a new filter shape fails
 * here until the model learns it.
 */
final class ServerIdQuery {

  private static final Map<BsonType, String> ALIAS = Map.ofEntries(Map.entry(BsonType.DOUBLE, "double"),
      Map.entry(BsonType.STRING, "string"), Map.entry(BsonType.DOCUMENT, "object"), Map.entry(BsonType.ARRAY, "array"),
      Map.entry(BsonType.BINARY, "binData"), Map.entry(BsonType.UNDEFINED, "undefined"),
      Map.entry(BsonType.OBJECT_ID, "objectId"), Map.entry(BsonType.BOOLEAN, "bool"),
      Map.entry(BsonType.DATE_TIME, "date"), Map.entry(BsonType.NULL, "null"),
      Map.entry(BsonType.REGULAR_EXPRESSION, "regex"), Map.entry(BsonType.DB_POINTER, "dbPointer"),
      Map.entry(BsonType.JAVASCRIPT, "javascript"), Map.entry(BsonType.SYMBOL, "symbol"),
      Map.entry(BsonType.JAVASCRIPT_WITH_SCOPE, "javascriptWithScope"), Map.entry(BsonType.INT32, "int"),
      Map.entry(BsonType.TIMESTAMP, "timestamp"), Map.entry(BsonType.INT64, "long"),
      Map.entry(BsonType.DECIMAL128, "decimal"), Map.entry(BsonType.MIN_KEY, "minKey"),
      Map.entry(BsonType.MAX_KEY, "maxKey"));

  private ServerIdQuery() {}

  static boolean matches(BsonDocument filter, BsonValue id) {
    if (filter.isEmpty()) {
      return true;
    }
    if (filter.size() != 1 || !filter.containsKey("_id")) {
      throw new IllegalArgumentException("model only knows {_id: {...}}: " + filter.toJson());
    }
    return condition(filter.getDocument("_id"), id);
  }

  private static boolean condition(BsonDocument operators, BsonValue id) {
    for (Map.Entry<String, BsonValue> op : operators.entrySet()) {
      boolean holds = switch (op.getKey()) {
        case "$type" -> op.getValue().asArray().stream()
            .anyMatch(alias -> alias.asString().getValue().equals(ALIAS.get(id.getBsonType())));
        case "$gte" -> compare(id, op.getValue(), true);
        case "$lt" -> compare(id, op.getValue(), false);
        case "$not" -> !condition(op.getValue().asDocument(), id);
        default -> throw new IllegalArgumentException("model does not know " + op.getKey());
      };
      if (!holds) {
        return false;
      }
    }
    return true;
  }

  private static boolean compare(BsonValue id, BsonValue bound, boolean greaterOrEqual) {
    if (IdTypeBracket.of(id) != IdTypeBracket.of(bound)) {
      return false;
    }
    if (BsonIdOrder.isNaN(id) || BsonIdOrder.isNaN(bound)) {
      return greaterOrEqual && BsonIdOrder.isNaN(id) && BsonIdOrder.isNaN(bound);
    }
    int cmp = BsonIdOrder.INSTANCE.compare(id, bound);
    return greaterOrEqual ? cmp >= 0 : cmp < 0;
  }
}
