package io.mongocdc.destination;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

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
