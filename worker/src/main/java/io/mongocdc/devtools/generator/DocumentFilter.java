package io.mongocdc.devtools.generator;

import io.mongocdc.snapshot.BsonIdOrder;
import io.mongocdc.snapshot.IdTypeBracket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * The part of MongoDB's query language an in-memory snapshot filter understands: top-level
 * fields compared by equality or with {@code $eq, $ne, $gt, $gte, $lt, $lte, $in}, all fields
 * ANDed. Matching follows the server: comparisons only within a type bracket, numbers by value,
 * an array field matches if the array or any element does, {@code null} matches a missing field,
 * NaN only equals NaN. Anything else is rejected, so neither the development load generator nor
 * a test relies on a filter this model gets wrong.
 */
final class DocumentFilter {

  private enum Op { EQ, NE, GT, GTE, LT, LTE, IN }

  private record Condition(String field, Op op, BsonValue operand) {}

  private final List<Condition> conditions;

  private DocumentFilter(List<Condition> conditions) {
    this.conditions = conditions;
  }

  static DocumentFilter parse(BsonDocument filter) {
    List<Condition> conditions = new ArrayList<>();
    for (Map.Entry<String, BsonValue> entry : filter.entrySet()) {
      String field = entry.getKey();
      if (field.startsWith("$")) {
        throw new IllegalArgumentException("unsupported top-level operator " + field + " in snapshot filter " + filter.toJson());
      }
      if (field.contains(".")) {
        throw new IllegalArgumentException("unsupported dotted path '" + field + "' in snapshot filter " + filter.toJson());
      }
      BsonValue value = entry.getValue();
      if (isOperatorDocument(value)) {
        for (Map.Entry<String, BsonValue> op : value.asDocument().entrySet()) {
          conditions.add(new Condition(field, operator(op.getKey(), filter), checkedOperand(op.getKey(), op.getValue(), filter)));
        }
      } else {
        conditions.add(new Condition(field, Op.EQ, checkedOperand("$eq", value, filter)));
      }
    }
    return new DocumentFilter(List.copyOf(conditions));
  }

  private static boolean isOperatorDocument(BsonValue value) {
    return value.isDocument() && !value.asDocument().isEmpty() && value.asDocument().getFirstKey().startsWith("$");
  }

  private static Op operator(String name, BsonDocument filter) {
    return switch (name) {
      case "$eq" -> Op.EQ;
      case "$ne" -> Op.NE;
      case "$gt" -> Op.GT;
      case "$gte" -> Op.GTE;
      case "$lt" -> Op.LT;
      case "$lte" -> Op.LTE;
      case "$in" -> Op.IN;
      default -> throw new IllegalArgumentException("unsupported operator " + name + " in snapshot filter " + filter.toJson()
          + " (supported: field equality, $eq, $ne, $gt, $gte, $lt, $lte, $in)");
    };
  }

  private static BsonValue checkedOperand(String op, BsonValue operand, BsonDocument filter) {
    if (op.equals("$in")) {
      if (!operand.isArray()) {
        throw new IllegalArgumentException("$in needs an array in snapshot filter " + filter.toJson());
      }
      operand.asArray().forEach(v -> checkedOperand("$eq", v, filter));
    } else if (operand.isRegularExpression()) {
      // The server matches a regex operand as a pattern, which this model does not.
      throw new IllegalArgumentException("unsupported regular expression in snapshot filter " + filter.toJson());
    } else if (isOperatorDocument(operand)) {
      throw new IllegalArgumentException("unsupported nested operator in snapshot filter " + filter.toJson());
    }
    return operand;
  }

  boolean matches(BsonDocument document) {
    for (Condition condition : conditions) {
      if (!matches(condition, document.get(condition.field()))) {
        return false;
      }
    }
    return true;
  }

  private static boolean matches(Condition c, BsonValue value) {
    return switch (c.op()) {
      case EQ -> equalsOrContains(value, c.operand());
      case NE -> !equalsOrContains(value, c.operand());
      case IN -> c.operand().asArray().stream().anyMatch(candidate -> equalsOrContains(value, candidate));
      case GT, GTE, LT, LTE -> (value == null && c.operand().isNull() && (c.op() == Op.GTE || c.op() == Op.LTE))
          || anyCandidate(value, v -> compares(c.op(), v, c.operand()));
    };
  }

  private static boolean equalsOrContains(BsonValue value, BsonValue operand) {
    if (operand.isNull() && value == null) {
      return true;
    }
    return anyCandidate(value, v -> operand.isNull() ? v.isNull() : BsonIdOrder.equal(v, operand));
  }

  private static boolean anyCandidate(BsonValue value, Predicate<BsonValue> test) {
    if (value == null) {
      return false;
    }
    if (test.test(value)) {
      return true;
    }
    if (value.isArray()) {
      for (BsonValue element : (BsonArray) value) {
        if (test.test(element)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean compares(Op op, BsonValue value, BsonValue operand) {
    if (IdTypeBracket.of(value) != IdTypeBracket.of(operand)) {
      return false;
    }
    if (BsonIdOrder.isNaN(value) || BsonIdOrder.isNaN(operand)) {
      // The server: NaN equals NaN and otherwise compares false either way.
      boolean bothNaN = BsonIdOrder.isNaN(value) && BsonIdOrder.isNaN(operand);
      return bothNaN && (op == Op.GTE || op == Op.LTE);
    }
    int cmp = BsonIdOrder.INSTANCE.compare(value, operand);
    return switch (op) {
      case GT -> cmp > 0;
      case GTE -> cmp >= 0;
      case LT -> cmp < 0;
      case LTE -> cmp <= 0;
      default -> throw new IllegalStateException(op.name());
    };
  }
}
