package io.mongocdc.decode;

import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * An independent model of when MongoDB treats two values as equal (BSONElement::woCompare with
 * the simple collation): numbers by exact value across int32/int64/double/Decimal128 with all
 * NaNs equal and -0 == 0; string and symbol by content; documents by field names, order and
 * values; everything else by type and content. Used as the oracle for key injectivity.
 */
final class MongoEquality {

  private MongoEquality() {}

  static boolean equal(BsonValue a, BsonValue b) {
    if (a.isNumber() || a.isDecimal128()) {
      return (b.isNumber() || b.isDecimal128()) && numbersEqual(a, b);
    }
    if (isText(a)) {
      return isText(b) && text(a).equals(text(b));
    }
    if (a.getBsonType() != b.getBsonType()) {
      return false;
    }
    switch (a.getBsonType()) {
      case DOCUMENT:
        return documentsEqual(a.asDocument(), b.asDocument());
      case ARRAY: {
        if (a.asArray().size() != b.asArray().size()) {
          return false;
        }
        for (int i = 0; i < a.asArray().size(); i++) {
          if (!equal(a.asArray().get(i), b.asArray().get(i))) {
            return false;
          }
        }
        return true;
      }
      case JAVASCRIPT_WITH_SCOPE:
        return a.asJavaScriptWithScope().getCode().equals(b.asJavaScriptWithScope().getCode())
            && documentsEqual(a.asJavaScriptWithScope().getScope(), b.asJavaScriptWithScope().getScope());
      default:
        return a.equals(b);
    }
  }

  private static boolean documentsEqual(BsonDocument a, BsonDocument b) {
    if (a.size() != b.size()) {
      return false;
    }
    Iterator<Map.Entry<String, BsonValue>> ia = a.entrySet().iterator();
    Iterator<Map.Entry<String, BsonValue>> ib = b.entrySet().iterator();
    while (ia.hasNext()) {
      Map.Entry<String, BsonValue> ea = ia.next();
      Map.Entry<String, BsonValue> eb = ib.next();
      if (!ea.getKey().equals(eb.getKey()) || !equal(ea.getValue(), eb.getValue())) {
        return false;
      }
    }
    return true;
  }

  private static boolean isText(BsonValue v) {
    return v.isString() || v.isSymbol();
  }

  private static String text(BsonValue v) {
    return v.isString() ? v.asString().getValue() : v.asSymbol().getSymbol();
  }

  private static boolean numbersEqual(BsonValue a, BsonValue b) {
    Object x = exact(a);
    Object y = exact(b);
    if (x instanceof BigDecimal bx && y instanceof BigDecimal by) {
      return bx.compareTo(by) == 0;
    }
    return x.equals(y);
  }

  /** A finite number's exact value as BigDecimal, or "NaN" / "+Inf" / "-Inf". */
  private static Object exact(BsonValue v) {
    switch (v.getBsonType()) {
      case INT32:
        return BigDecimal.valueOf(v.asInt32().getValue());
      case INT64:
        return BigDecimal.valueOf(v.asInt64().getValue());
      case DOUBLE: {
        double d = v.asDouble().getValue();
        if (Double.isNaN(d)) {
          return "NaN";
        }
        if (Double.isInfinite(d)) {
          return d > 0 ? "+Inf" : "-Inf";
        }
        return new BigDecimal(d);
      }
      default: {
        Decimal128 d = v.asDecimal128().getValue();
        if (d.isNaN()) {
          return "NaN";
        }
        if (d.isInfinite()) {
          return d.isNegative() ? "-Inf" : "+Inf";
        }
        return d.isNegative() && Decimal128.fromIEEE754BIDEncoding(d.getHigh() & Long.MAX_VALUE, d.getLow())
            .bigDecimalValue().signum() == 0 ? BigDecimal.ZERO : d.bigDecimalValue();
      }
    }
  }
}
