package io.mongocdc.decode;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;
import java.util.regex.Pattern;
import org.bson.BsonArray;
import org.bson.BsonBinary;
import org.bson.BsonBinarySubType;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.types.Decimal128;

/**
 * The defined conversion of a BSON value to a typed column's type (the table in {@code
 * docs/destination.md}): a value of the {@link TypedValues} kind for that type, null for BSON
 * null, or a {@link Drift} saying why it does not convert. Never throws for a value.
 */
final class ColumnConversion {

  /** Why a value did not convert. */
  record Drift(String reason) {}

  /** 2^53: every integer of at most this magnitude is a double exactly. */
  static final long DOUBLE_EXACT = 1L << 53;
  /**
   * The start of PostgreSQL's timestamptz range (4714-11-24 BC), in microseconds since 1970. Its
   * end (294277 AD) lies beyond every date whose microseconds fit in 64 bits.
   */
  static final long MIN_TIMESTAMPTZ_MICROS = -210_866_803_200_000_000L;

  private static final Pattern UUID_TEXT =
      Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final DateTimeFormatter ISO_MILLIS =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private ColumnConversion() {}

  static Object convert(BsonValue value, ColumnType type, ValueJson json) {
    BsonType bson = value.getBsonType();
    if (bson == BsonType.NULL || bson == BsonType.UNDEFINED) {
      return null;
    }
    return switch (type) {
      case TEXT -> text(value);
      case BIGINT -> bigint(value);
      case NUMERIC -> numeric(value);
      case DOUBLE_PRECISION -> doublePrecision(value);
      case BOOLEAN -> bson == BsonType.BOOLEAN ? (Object) value.asBoolean().getValue() : notConvertible(type);
      case TIMESTAMPTZ -> timestamptz(value);
      case UUID -> uuid(value);
      case JSONB -> json.render(value);
      case TEXT_ARRAY -> textArray(value);
    };
  }

  private static Object text(BsonValue value) {
    String text = switch (value.getBsonType()) {
      case STRING -> value.asString().getValue();
      case SYMBOL -> value.asSymbol().getSymbol();
      case OBJECT_ID -> value.asObjectId().getValue().toHexString();
      case INT32 -> Integer.toString(value.asInt32().getValue());
      case INT64 -> Long.toString(value.asInt64().getValue());
      case DOUBLE -> CanonicalNumber.ofExact(doubleText(value.asDouble().getValue()));
      case DECIMAL128 -> value.asDecimal128().getValue().toString();
      case BOOLEAN -> Boolean.toString(value.asBoolean().getValue());
      case DATE_TIME -> ISO_MILLIS.format(Instant.ofEpochMilli(value.asDateTime().getValue()));
      case BINARY -> {
        UUID uuid = standardUuid(value.asBinary());
        yield uuid == null ? null : uuid.toString();
      }
      default -> null;
    };
    if (value.getBsonType() == BsonType.DOUBLE && !Double.isFinite(value.asDouble().getValue())) {
      text = CanonicalNumber.ofDouble(value.asDouble().getValue());
    }
    if (text == null) {
      return notConvertible(ColumnType.TEXT);
    }
    if (text.indexOf('\0') >= 0) {
      return new Drift("text cannot hold NUL");
    }
    return text;
  }

  /** A finite double's shortest decimal (what it prints as), not its binary expansion. */
  private static BigDecimal doubleText(double d) {
    return Double.isFinite(d) ? new BigDecimal(Double.toString(d)) : BigDecimal.ZERO;
  }

  private static Object bigint(BsonValue value) {
    switch (value.getBsonType()) {
      case INT32:
        return (long) value.asInt32().getValue();
      case INT64:
        return value.asInt64().getValue();
      case DOUBLE: {
        double d = value.asDouble().getValue();
        if (d != Math.rint(d) || Double.isInfinite(d)) {
          return new Drift("not a whole number");
        }
        if (d < -0x1p63 || d >= 0x1p63) {
          return new Drift("beyond bigint");
        }
        return (long) d;
      }
      case DECIMAL128: {
        Decimal128 decimal = value.asDecimal128().getValue();
        if (decimal.isNaN() || decimal.isInfinite()) {
          return new Drift("not a whole number");
        }
        try {
          return Decimal128Values.exactValue(decimal).longValueExact();
        } catch (ArithmeticException e) {
          return new Drift(Decimal128Values.exactValue(decimal).stripTrailingZeros().scale() > 0
              ? "not a whole number" : "beyond bigint");
        }
      }
      default:
        return notConvertible(ColumnType.BIGINT);
    }
  }

  private static Object numeric(BsonValue value) {
    switch (value.getBsonType()) {
      case INT32:
        return BigDecimal.valueOf(value.asInt32().getValue());
      case INT64:
        return BigDecimal.valueOf(value.asInt64().getValue());
      case DOUBLE: {
        double d = value.asDouble().getValue();
        return Double.isFinite(d) ? (Object) doubleText(d) : (Object) d;
      }
      case DECIMAL128: {
        Decimal128 decimal = value.asDecimal128().getValue();
        return decimal.isNaN() || decimal.isInfinite() ? special(decimal) : Decimal128Values.exactValue(decimal);
      }
      default:
        return notConvertible(ColumnType.NUMERIC);
    }
  }

  private static Object doublePrecision(BsonValue value) {
    switch (value.getBsonType()) {
      case DOUBLE:
        return value.asDouble().getValue();
      case INT32:
        return (double) value.asInt32().getValue();
      case INT64: {
        long l = value.asInt64().getValue();
        if (l > DOUBLE_EXACT || l < -DOUBLE_EXACT) {
          return new Drift("beyond double precision's exact integers (2^53)");
        }
        return (double) l;
      }
      case DECIMAL128: {
        Decimal128 decimal = value.asDecimal128().getValue();
        if (decimal.isNaN() || decimal.isInfinite()) {
          return special(decimal);
        }
        BigDecimal exact = Decimal128Values.exactValue(decimal);
        double d = exact.doubleValue();
        // Kept only when the double reads back as the same decimal: no digit is lost silently.
        if (!Double.isFinite(d) || doubleText(d).compareTo(exact) != 0) {
          return new Drift("not exactly a double precision value");
        }
        return d;
      }
      default:
        return notConvertible(ColumnType.DOUBLE_PRECISION);
    }
  }

  /** A NaN or infinite decimal as the double of the same kind (numeric and double precision hold all three). */
  private static Double special(Decimal128 decimal) {
    if (decimal.isNaN()) {
      return Double.NaN;
    }
    return decimal.isNegative() ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
  }

  private static Object timestamptz(BsonValue value) {
    long micros;
    switch (value.getBsonType()) {
      case DATE_TIME:
        try {
          micros = Math.multiplyExact(value.asDateTime().getValue(), 1000L);
        } catch (ArithmeticException e) {
          return new Drift("beyond timestamptz's range");
        }
        break;
      case TIMESTAMP:
        micros = value.asTimestamp().getTime() * 1_000_000L;
        break;
      default:
        return notConvertible(ColumnType.TIMESTAMPTZ);
    }
    if (micros < MIN_TIMESTAMPTZ_MICROS) {
      return new Drift("beyond timestamptz's range");
    }
    return micros;
  }

  private static Object uuid(BsonValue value) {
    if (value.getBsonType() == BsonType.BINARY) {
      BsonBinary binary = value.asBinary();
      UUID uuid = standardUuid(binary);
      if (uuid != null) {
        return uuid;
      }
      return new Drift(binary.getType() == BsonBinarySubType.UUID_LEGACY.getValue()
          ? "legacy UUID (subtype 3): its byte order depends on the driver that wrote it"
          : "binary of subtype " + binary.getType() + " and " + binary.getData().length + " bytes is not a UUID");
    }
    if (value.getBsonType() == BsonType.STRING) {
      String text = value.asString().getValue();
      return UUID_TEXT.matcher(text).matches() ? UUID.fromString(text) : new Drift("not a UUID's text");
    }
    return notConvertible(ColumnType.UUID);
  }

  private static Object textArray(BsonValue value) {
    if (value.getBsonType() != BsonType.ARRAY) {
      return notConvertible(ColumnType.TEXT_ARRAY);
    }
    BsonArray array = value.asArray();
    String[] texts = new String[array.size()];
    for (int i = 0; i < texts.length; i++) {
      BsonValue element = array.get(i);
      if (element.isNull() || element.getBsonType() == BsonType.UNDEFINED) {
        continue;
      }
      Object text = text(element);
      if (text instanceof Drift drift) {
        return new Drift("element " + i + " (" + BsonTypes.name(element.getBsonType()) + "): " + drift.reason());
      }
      texts[i] = (String) text;
    }
    return texts;
  }

  /** The UUID of binary subtype 4 with 16 bytes; null for any other binary. */
  private static UUID standardUuid(BsonBinary binary) {
    if (binary.getType() != BsonBinarySubType.UUID_STANDARD.getValue() || binary.getData().length != 16) {
      return null;
    }
    ByteBuffer bytes = ByteBuffer.wrap(binary.getData());
    return new UUID(bytes.getLong(), bytes.getLong());
  }

  private static Drift notConvertible(ColumnType type) {
    return new Drift("does not convert to " + type.sql());
  }
}
