package io.mongocdc.destination;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.UUID;

/**
 * Builds a PostgreSQL binary COPY stream ({@code COPY ... FROM STDIN (FORMAT binary)}) in a
 * reusable byte array: no text escaping on our side, no text parsing of numbers and times on
 * the server's. Not thread-safe.
 */
final class BinaryCopyBuffer {

  static final byte[] HEADER = {
    'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0, // signature
    0, 0, 0, 0, // flags
    0, 0, 0, 0 // header extension length
  };

  /** 2000-01-01T00:00:00Z, PostgreSQL's timestamp epoch, in microseconds since 1970. */
  private static final long PG_EPOCH_MICROS = 946_684_800_000_000L;

  private static final int NUMERIC_POS = 0x0000;
  private static final int NUMERIC_NEG = 0x4000;
  private static final int NUMERIC_NAN = 0xC000;
  private static final int NUMERIC_PINF = 0xD000;
  private static final int NUMERIC_NINF = 0xF000;
  private static final int TEXT_OID = 25;

  private byte[] bytes = new byte[64 * 1024];
  private int size;
  private int rows;

  /** Empties the buffer (rows only: the stream's header and trailer are sent separately). */
  void reset() {
    size = 0;
    rows = 0;
  }

  int rows() {
    return rows;
  }

  byte[] array() {
    return bytes;
  }

  /** Bytes of the rows written since {@link #reset}. */
  int size() {
    return size;
  }

  void startRow(int fields) {
    putShort(fields);
    rows++;
  }

  void putBigint(long value) {
    putInt(8);
    putLong(value);
  }

  void putText(String value) {
    if (value == null) {
      putInt(-1);
      return;
    }
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    putInt(utf8.length);
    put(utf8, 0, utf8.length);
  }

  /** jsonb's binary form: format version 1, then the JSON text. */
  void putJsonb(String json) {
    byte[] utf8 = json.getBytes(StandardCharsets.UTF_8);
    putInt(utf8.length + 1);
    ensure(1);
    bytes[size++] = 1;
    put(utf8, 0, utf8.length);
  }

  void putTimestamptz(Instant instant) {
    long micros =
        Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    putInt(8);
    putLong(micros - PG_EPOCH_MICROS);
  }

  /** A timestamptz given as microseconds since 1970. */
  void putTimestamptzMicros(long unixMicros) {
    putInt(8);
    putLong(unixMicros - PG_EPOCH_MICROS);
  }

  void putDouble(double value) {
    putInt(8);
    putLong(Double.doubleToRawLongBits(value));
  }

  void putBoolean(boolean value) {
    putInt(1);
    ensure(1);
    bytes[size++] = (byte) (value ? 1 : 0);
  }

  void putUuid(UUID value) {
    putInt(16);
    putLong(value.getMostSignificantBits());
    putLong(value.getLeastSignificantBits());
  }

  void putNull() {
    putInt(-1);
  }

  /** numeric's binary form: NaN and the infinities as given (a Double), else the BigDecimal's exact value. */
  void putNumeric(Object value) {
    if (value instanceof Double special) {
      putInt(8);
      putShort(0);
      putShort(0);
      putShort(special.isNaN() ? NUMERIC_NAN : special > 0 ? NUMERIC_PINF : NUMERIC_NINF);
      putShort(0);
      return;
    }
    BigDecimal decimal = (BigDecimal) value;
    if (decimal.scale() < 0) {
      decimal = decimal.setScale(0);
    }
    int scale = decimal.scale();
    String digits = decimal.unscaledValue().abs().toString();
    int integerDigits = digits.length() - scale;
    StringBuilder all = new StringBuilder(digits.length() + 8);
    if (integerDigits > 0) {
      all.append("0".repeat((4 - integerDigits % 4) % 4)).append(digits, 0, integerDigits);
    }
    int integerGroups = all.length() / 4;
    if (integerDigits < 0) {
      all.append("0".repeat(-integerDigits)).append(digits);
    } else {
      all.append(digits, integerDigits, digits.length());
    }
    all.append("0".repeat((4 - all.length() % 4) % 4));
    int groups = all.length() / 4;
    int first = 0;
    while (first < groups && all.substring(first * 4, first * 4 + 4).equals("0000")) {
      first++;
    }
    int last = groups;
    while (last > first && all.substring(last * 4 - 4, last * 4).equals("0000")) {
      last--;
    }
    int ndigits = last - first;
    putInt(8 + 2 * ndigits);
    putShort(ndigits);
    putShort(ndigits == 0 ? 0 : integerGroups - 1 - first);
    putShort(decimal.signum() < 0 ? NUMERIC_NEG : NUMERIC_POS);
    putShort(scale);
    for (int g = first; g < last; g++) {
      putShort(Integer.parseInt(all.substring(g * 4, g * 4 + 4)));
    }
  }

  /** A one-dimensional text[] (elements may be null); an empty array has no dimension. */
  void putTextArray(String[] elements) {
    int start = size;
    putInt(0); // length, filled in below
    boolean hasNull = false;
    for (String e : elements) {
      hasNull |= e == null;
    }
    putInt(elements.length == 0 ? 0 : 1);
    putInt(hasNull ? 1 : 0);
    putInt(TEXT_OID);
    if (elements.length > 0) {
      putInt(elements.length);
      putInt(1);
      for (String e : elements) {
        putText(e);
      }
    }
    int length = size - start - 4;
    bytes[start] = (byte) (length >>> 24);
    bytes[start + 1] = (byte) (length >>> 16);
    bytes[start + 2] = (byte) (length >>> 8);
    bytes[start + 3] = (byte) length;
  }

  /** The end-of-data marker of a binary COPY stream. */
  static final byte[] TRAILER = {(byte) 0xFF, (byte) 0xFF};

  private void putShort(int v) {
    ensure(2);
    bytes[size++] = (byte) (v >>> 8);
    bytes[size++] = (byte) v;
  }

  private void putInt(int v) {
    ensure(4);
    bytes[size++] = (byte) (v >>> 24);
    bytes[size++] = (byte) (v >>> 16);
    bytes[size++] = (byte) (v >>> 8);
    bytes[size++] = (byte) v;
  }

  private void putLong(long v) {
    putInt((int) (v >>> 32));
    putInt((int) v);
  }

  private void put(byte[] src, int off, int len) {
    ensure(len);
    System.arraycopy(src, off, bytes, size, len);
    size += len;
  }

  private void ensure(int more) {
    if (size + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }

  /** Drops a large array after a big chunk so an idle sink does not hold it. */
  void trim(int keepBytes) {
    if (bytes.length > keepBytes && size <= keepBytes) {
      bytes = Arrays.copyOf(bytes, keepBytes);
    }
  }
}
