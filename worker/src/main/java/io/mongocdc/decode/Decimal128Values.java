package io.mongocdc.decode;

import java.math.BigDecimal;
import java.math.BigInteger;
import org.bson.types.Decimal128;

/** Decimal128 values read from BSON, with the specification's reading of non-canonical encodings. */
public final class Decimal128Values {

  private static final long COMBINATION_11 = 0x6000_0000_0000_0000L;
  private static final long SIGN_AND_EXPONENT = 0xFFFE_0000_0000_0000L;
  private static final long COEFFICIENT_HIGH = 0x0001_FFFF_FFFF_FFFFL;
  /** 10^34 - 1, the largest canonical coefficient, split into its high and low 64 bits. */
  private static final long MAX_COEFFICIENT_HIGH = 0x1_ED09_BEAD_87C0L;
  private static final long MAX_COEFFICIENT_LOW = 0x378D_8E63_FFFF_FFFFL;
  /** 10^34 - 1 again, for {@link #exactValue}. */
  private static final BigInteger MAX_COEFFICIENT = BigInteger.TEN.pow(34).subtract(BigInteger.ONE);

  private Decimal128Values() {}

  /**
   * The value of the IEEE 754-2008 BID encoding {@code high:low}. A coefficient above
   * 10^34 - 1 is non-canonical and means zero (same sign and exponent), as the Decimal128
   * specification and the server read it; the driver would print the oversized coefficient,
   * which no reader accepts back.
   */
  static Decimal128 fromBid(long high, long low) {
    if ((high & COMBINATION_11) != COMBINATION_11) {
      long coefficientHigh = high & COEFFICIENT_HIGH;
      if (coefficientHigh > MAX_COEFFICIENT_HIGH
          || (coefficientHigh == MAX_COEFFICIENT_HIGH && Long.compareUnsigned(low, MAX_COEFFICIENT_LOW) > 0)) {
        return Decimal128.fromIEEE754BIDEncoding(high & SIGN_AND_EXPONENT, 0);
      }
    }
    return Decimal128.fromIEEE754BIDEncoding(high, low);
  }

  /**
   * The exact value of a finite (not NaN, not infinite) Decimal128, as MongoDB compares it: -0
   * and every non-canonical encoding are zero (a coefficient above 10^34 - 1; the "11"
   * combination forms, which the driver already reads as zero). The scale is kept, so compare
   * results with {@code compareTo}.
   */
  public static BigDecimal exactValue(Decimal128 finite) {
    BigDecimal exact;
    try {
      exact = finite.bigDecimalValue();
    } catch (ArithmeticException negativeZero) {
      return BigDecimal.ZERO;
    }
    return exact.unscaledValue().abs().compareTo(MAX_COEFFICIENT) > 0 ? BigDecimal.ZERO : exact;
  }
}
