package io.mongocdc.decode;

import java.math.BigDecimal;
import org.bson.types.Decimal128;

/**
 * One text per numeric value, whatever its BSON type, for {@code _id} keys.
 *
 * <p>MongoDB compares int32, int64, double and Decimal128 by exact mathematical value (a
 * Decimal128 equals a double only if it converts to that double exactly), all NaNs are equal,
 * and -0 equals 0. So the key text is a function of the exact value: distinct values give
 * distinct texts, equal values the same text. Rules (see {@code docs/id-keys.md}):
 *
 * <ul>
 *   <li>zero (any sign, any type, any exponent): {@code 0};
 *   <li>NaN: {@code NaN}; infinities: {@code Infinity}, {@code -Infinity};
 *   <li>otherwise the exact value without trailing zeros, in plain notation if its leading
 *       digit's exponent is in [-7, 19], else in scientific notation {@code d.dddE+n} /
 *       {@code d.dddE-n}.
 * </ul>
 *
 * <p>The plain range covers every int64, and keeps plain integers to at most 20 digits, so no
 * number can look like an ObjectId's 24 hex digits.
 */
final class CanonicalNumber {

  /** Below 2^63 every integral double converts to long exactly. */
  private static final double LONG_SAFE = 9.2e18;

  private CanonicalNumber() {}

  static String ofLong(long value) {
    return Long.toString(value);
  }

  static String ofDouble(double value) {
    if (Double.isNaN(value)) {
      return "NaN";
    }
    if (Double.isInfinite(value)) {
      return value > 0 ? "Infinity" : "-Infinity";
    }
    if (value == 0) {
      return "0";
    }
    if (value == Math.rint(value) && Math.abs(value) < LONG_SAFE) {
      return Long.toString((long) value);
    }
    // new BigDecimal(double) is the double's exact binary value, not its shortest decimal
    // string: a long and the nearest double must not collide.
    return ofExact(new BigDecimal(value));
  }

  static String ofDecimal128(Decimal128 value) {
    if (value.isNaN()) {
      return "NaN";
    }
    if (value.isInfinite()) {
      return value.isNegative() ? "-Infinity" : "Infinity";
    }
    return ofExact(Decimal128Values.exactValue(value));
  }

  static String ofExact(BigDecimal value) {
    if (value.signum() == 0) {
      return "0";
    }
    BigDecimal stripped = value.stripTrailingZeros();
    long adjusted = (long) stripped.precision() - stripped.scale() - 1;
    if (adjusted >= -7 && adjusted <= 19) {
      return stripped.toPlainString();
    }
    String digits = stripped.unscaledValue().abs().toString();
    StringBuilder text = new StringBuilder(digits.length() + 8);
    if (stripped.signum() < 0) {
      text.append('-');
    }
    text.append(digits.charAt(0));
    if (digits.length() > 1) {
      text.append('.').append(digits, 1, digits.length());
    }
    return text.append('E').append(adjusted >= 0 ? '+' : '-').append(Math.abs(adjusted)).toString();
  }
}
