package io.mongocdc.decode;

/**
 * Formats BSON datetimes (signed milliseconds since the Unix epoch) as ISO-8601 UTC text,
 * {@code yyyy-MM-ddTHH:mm:ss.SSSZ}, for every representable instant.
 *
 * <p>Written by hand rather than with {@code java.time} formatters because it runs for every
 * date in every document and must not allocate. Years outside 0000..9999 use the ISO-8601
 * expanded form, as {@link java.time.Instant#toString()} does: a {@code +} before years above
 * 9999, a {@code -} before negative years (proleptic Gregorian, astronomical numbering: year 0
 * is 1 BC).
 */
final class IsoDateTimeFormat {

  /** 9999-12-31T23:59:59.999Z: the last instant relaxed Extended JSON writes as a string. */
  static final long LAST_MILLIS_OF_9999 = 253_402_300_799_999L;

  private static final long MILLIS_PER_DAY = 86_400_000L;

  private IsoDateTimeFormat() {}

  /** Appends the instant, always with three fraction digits. */
  static void write(long epochMillis, Utf8JsonOutput out) {
    long days = Math.floorDiv(epochMillis, MILLIS_PER_DAY);
    long millisOfDay = Math.floorMod(epochMillis, MILLIS_PER_DAY);

    // Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil inverse), exact over
    // the whole long range of days we can get here.
    long z = days + 719_468;
    long era = Math.floorDiv(z, 146_097);
    long dayOfEra = z - era * 146_097;
    long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365;
    long year = yearOfEra + era * 400;
    long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100);
    long mp = (5 * dayOfYear + 2) / 153;
    long day = dayOfYear - (153 * mp + 2) / 5 + 1;
    long month = mp < 10 ? mp + 3 : mp - 9;
    if (month <= 2) {
      year++;
    }

    if (year > 9999) {
      out.writeByte('+');
      out.writeLong(year);
    } else if (year < 0) {
      out.writeByte('-');
      long abs = -year;
      if (abs < 10_000) {
        out.writePadded(abs, 4);
      } else {
        out.writeLong(abs);
      }
    } else {
      out.writePadded(year, 4);
    }
    out.writeByte('-');
    out.writePadded(month, 2);
    out.writeByte('-');
    out.writePadded(day, 2);
    out.writeByte('T');
    out.writePadded(millisOfDay / 3_600_000, 2);
    out.writeByte(':');
    out.writePadded(millisOfDay / 60_000 % 60, 2);
    out.writeByte(':');
    out.writePadded(millisOfDay / 1000 % 60, 2);
    out.writeByte('.');
    out.writePadded(millisOfDay % 1000, 3);
    out.writeByte('Z');
  }
}
