package io.mongocdc.snapshot;

import io.mongocdc.decode.Decimal128Values;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonDbPointer;
import org.bson.BsonDocument;
import org.bson.BsonRegularExpression;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * MongoDB's sort order of values (BSONElement::woCompare under the simple collation): by type
 * bracket first, then by value. Equal means equal to the server, so {@code 1}, {@code 1L},
 * {@code 1.0} and {@code NumberDecimal("1.00")} compare 0.
 *
 * <p>Within a bracket: numbers by exact mathematical value (NaN lowest, all NaNs equal, -0 equals
 * 0; a long is never rounded through a double, a Decimal128 never through either; the server's
 * compareDecimalToDouble is exact too); strings and symbols by code point, which is the UTF-8
 * byte order of the simple collation; ObjectId by its 12 bytes; binData by length, then subtype,
 * then bytes; booleans false first; dates by signed milliseconds; timestamps unsigned. Brackets
 * that are never split (see {@link IdTypeBracket#splittable}) are still ordered here so that
 * in-memory sources can key documents by {@code _id}; only equality matters for them.
 */
public final class BsonIdOrder implements Comparator<BsonValue> {

  public static final BsonIdOrder INSTANCE = new BsonIdOrder();

  private BsonIdOrder() {}

  @Override
  public int compare(BsonValue a, BsonValue b) {
    int byBracket = Integer.compare(IdTypeBracket.of(a).ordinal(), IdTypeBracket.of(b).ordinal());
    return byBracket != 0 ? byBracket : compareWithinBracket(a, b);
  }

  /** True if the server treats the two values as the same {@code _id}. */
  public static boolean equal(BsonValue a, BsonValue b) {
    return INSTANCE.compare(a, b) == 0;
  }

  /** True for a NaN of any numeric type: the server's queries never range-match it. */
  public static boolean isNaN(BsonValue value) {
    return (value.isDouble() && Double.isNaN(value.asDouble().getValue()))
        || (value.isDecimal128() && value.asDecimal128().getValue().isNaN());
  }

  private static int compareWithinBracket(BsonValue a, BsonValue b) {
    return switch (IdTypeBracket.of(a)) {
      case MIN_KEY, NULL, MAX_KEY -> 0;
      case NUMBER -> compareNumbers(a, b);
      case STRING -> compareText(text(a), text(b));
      case OBJECT -> compareDocuments(a.asDocument(), b.asDocument());
      case ARRAY -> compareArrays(a.asArray(), b.asArray());
      case BIN_DATA -> compareBinary(a.asBinary(), b.asBinary());
      case OBJECT_ID -> compareBytes(a.asObjectId().getValue().toByteArray(), b.asObjectId().getValue().toByteArray());
      case BOOLEAN -> Boolean.compare(a.asBoolean().getValue(), b.asBoolean().getValue());
      case DATE -> Long.compare(a.asDateTime().getValue(), b.asDateTime().getValue());
      case TIMESTAMP -> Long.compareUnsigned(a.asTimestamp().getValue(), b.asTimestamp().getValue());
      case REGEX -> compareRegex(a.asRegularExpression(), b.asRegularExpression());
      case DB_POINTER -> compareDbPointers(a.asDBPointer(), b.asDBPointer());
      case JAVASCRIPT -> compareText(a.asJavaScript().getCode(), b.asJavaScript().getCode());
      case JAVASCRIPT_WITH_SCOPE -> {
        int byCode = compareText(a.asJavaScriptWithScope().getCode(), b.asJavaScriptWithScope().getCode());
        yield byCode != 0 ? byCode
            : compareDocuments(a.asJavaScriptWithScope().getScope(), b.asJavaScriptWithScope().getScope());
      }
    };
  }

  private static String text(BsonValue value) {
    return value.isString() ? value.asString().getValue() : value.asSymbol().getSymbol();
  }

  /** Code point order, which equals the unsigned UTF-8 byte order (unlike String.compareTo). */
  static int compareText(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Boolean.compare(i < a.length(), j < b.length());
  }

  private static int compareBytes(byte[] a, byte[] b) {
    return java.util.Arrays.compareUnsigned(a, b);
  }

  private static int compareBinary(BsonBinary a, BsonBinary b) {
    int byLength = Integer.compare(a.getData().length, b.getData().length);
    if (byLength != 0) {
      return byLength;
    }
    int bySubtype = Integer.compare(a.getType() & 0xFF, b.getType() & 0xFF);
    return bySubtype != 0 ? bySubtype : compareBytes(a.getData(), b.getData());
  }

  private static int compareRegex(BsonRegularExpression a, BsonRegularExpression b) {
    int byPattern = compareText(a.getPattern(), b.getPattern());
    return byPattern != 0 ? byPattern : compareText(a.getOptions(), b.getOptions());
  }

  /** The server compares the value's bytes after its size: namespace length, namespace, id. */
  private static int compareDbPointers(BsonDbPointer a, BsonDbPointer b) {
    byte[] na = a.getNamespace().getBytes(StandardCharsets.UTF_8);
    byte[] nb = b.getNamespace().getBytes(StandardCharsets.UTF_8);
    int byLength = Integer.compare(na.length, nb.length);
    if (byLength != 0) {
      return byLength;
    }
    int byNamespace = compareBytes(na, nb);
    return byNamespace != 0 ? byNamespace : compareBytes(a.getId().toByteArray(), b.getId().toByteArray());
  }

  /** Field by field: the element's bracket, then its name, then its value; a prefix sorts first. */
  private static int compareDocuments(BsonDocument a, BsonDocument b) {
    Iterator<Map.Entry<String, BsonValue>> ia = a.entrySet().iterator();
    Iterator<Map.Entry<String, BsonValue>> ib = b.entrySet().iterator();
    while (ia.hasNext() && ib.hasNext()) {
      Map.Entry<String, BsonValue> ea = ia.next();
      Map.Entry<String, BsonValue> eb = ib.next();
      int byBracket = Integer.compare(IdTypeBracket.of(ea.getValue()).ordinal(), IdTypeBracket.of(eb.getValue()).ordinal());
      if (byBracket != 0) {
        return byBracket;
      }
      int byName = compareText(ea.getKey(), eb.getKey());
      if (byName != 0) {
        return byName;
      }
      int byValue = compareWithinBracket(ea.getValue(), eb.getValue());
      if (byValue != 0) {
        return byValue;
      }
    }
    return Boolean.compare(ia.hasNext(), ib.hasNext());
  }

  private static int compareArrays(BsonArray a, BsonArray b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      int byElement = INSTANCE.compare(a.get(i), b.get(i));
      if (byElement != 0) {
        return byElement;
      }
    }
    return Integer.compare(a.size(), b.size());
  }

  static int compareNumbers(BsonValue a, BsonValue b) {
    if (isIntegral(a) && isIntegral(b)) {
      return Long.compare(a.asNumber().longValue(), b.asNumber().longValue());
    }
    if (a.isDouble() && b.isDouble()) {
      return compareDoubles(a.asDouble().getValue(), b.asDouble().getValue());
    }
    ExactNumber x = ExactNumber.of(a);
    ExactNumber y = ExactNumber.of(b);
    int byRank = Integer.compare(x.rank, y.rank);
    return byRank != 0 || x.rank != ExactNumber.FINITE ? byRank : x.value.compareTo(y.value);
  }

  private static boolean isIntegral(BsonValue value) {
    return value.isInt32() || value.isInt64();
  }

  private static int compareDoubles(double a, double b) {
    if (Double.isNaN(a) || Double.isNaN(b)) {
      return Boolean.compare(!Double.isNaN(a), !Double.isNaN(b));
    }
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** A number as NaN, an infinity, or an exact decimal. */
  private record ExactNumber(int rank, BigDecimal value) {
    static final int NAN = 0;
    static final int NEGATIVE_INFINITY = 1;
    static final int FINITE = 2;
    static final int POSITIVE_INFINITY = 3;

    static ExactNumber of(BsonValue number) {
      switch (number.getBsonType()) {
        case INT32:
          return finite(BigDecimal.valueOf(number.asInt32().getValue()));
        case INT64:
          return finite(BigDecimal.valueOf(number.asInt64().getValue()));
        case DOUBLE: {
          double d = number.asDouble().getValue();
          if (Double.isNaN(d)) {
            return new ExactNumber(NAN, null);
          }
          if (Double.isInfinite(d)) {
            return new ExactNumber(d > 0 ? POSITIVE_INFINITY : NEGATIVE_INFINITY, null);
          }
          // The double's exact binary value: its shortest decimal text would be a different number.
          return finite(new BigDecimal(d));
        }
        case DECIMAL128:
          return ofDecimal(number.asDecimal128().getValue());
        default:
          throw new IllegalArgumentException("not a number: " + number.getBsonType());
      }
    }

    private static ExactNumber ofDecimal(Decimal128 d) {
      if (d.isNaN()) {
        return new ExactNumber(NAN, null);
      }
      if (d.isInfinite()) {
        return new ExactNumber(d.isNegative() ? NEGATIVE_INFINITY : POSITIVE_INFINITY, null);
      }
      return finite(Decimal128Values.exactValue(d));
    }

    private static ExactNumber finite(BigDecimal value) {
      return new ExactNumber(FINITE, value);
    }
  }
}
