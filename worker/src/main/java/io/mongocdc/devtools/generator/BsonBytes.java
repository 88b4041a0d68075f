package io.mongocdc.devtools.generator;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes BSON straight into a reused byte buffer, the bytes the driver's codec would write for
 * the same values. The generator makes every event this way: encoding through a
 * {@code BsonDocument} tree and the codec cost more than the pipeline's decoding of the event.
 * Field names are passed pre-encoded, as made by {@link #name}.
 */
final class BsonBytes {

  private static final VarHandle INT32 = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final byte[][] INDEXES = new byte[128][];
  private static final byte[] HEX_DIGITS = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

  static {
    for (int i = 0; i < INDEXES.length; i++) {
      INDEXES[i] = name(Integer.toString(i));
    }
  }

  private byte[] buffer = new byte[64 * 1024];
  private int position;

  /** A field name as BSON writes it: UTF-8 and a terminating zero. */
  static byte[] name(String name) {
    byte[] utf8 = utf8(name);
    return Arrays.copyOf(utf8, utf8.length + 1);
  }

  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** The name of array element {@code i}. */
  static byte[] index(int i) {
    return INDEXES[i];
  }

  void reset() {
    position = 0;
  }

  /** Continues writing into {@code target} at {@code at}; it then grows like the own buffer would. */
  void writeInto(byte[] target, int at) {
    buffer = target;
    position = at;
  }

  /** The buffer written to: the one given to {@link #writeInto}, or a grown copy of it. */
  byte[] buffer() {
    return buffer;
  }

  int position() {
    return position;
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buffer, position);
  }

  /** Starts a document at the current position; returns what {@link #endDocument} needs. */
  int startDocument() {
    int start = position;
    int32Value(0);
    return start;
  }

  int startDocument(byte[] name) {
    header(0x03, name);
    return startDocument();
  }

  int startArray(byte[] name) {
    header(0x04, name);
    return startDocument();
  }

  void endDocument(int start) {
    byteValue(0);
    INT32.set(buffer, start, position - start);
  }

  void int32(byte[] name, int value) {
    header(0x10, name);
    int32Value(value);
  }

  void int64(byte[] name, long value) {
    header(0x12, name);
    int64Value(value);
  }

  void dateTime(byte[] name, long millis) {
    header(0x09, name);
    int64Value(millis);
  }

  void timestamp(byte[] name, long value) {
    header(0x11, name);
    int64Value(value);
  }

  void doubleValue(byte[] name, double value) {
    header(0x01, name);
    int64Value(Double.doubleToRawLongBits(value));
  }

  void bool(byte[] name, boolean value) {
    header(0x08, name);
    byteValue(value ? 1 : 0);
  }

  void nullValue(byte[] name) {
    header(0x0A, name);
  }

  /** An ObjectId or Decimal128, given as the bytes BSON stores. */
  void fixed(int type, byte[] name, byte[] value) {
    header(type, name);
    raw(value, 0, value.length);
  }

  void string(byte[] name, byte[] utf8) {
    header(0x02, name);
    int32Value(utf8.length + 1);
    raw(utf8, 0, utf8.length);
    byteValue(0);
  }

  /** The string {@code prefix + number + suffix}, without making it. */
  void string(byte[] name, byte[] prefix, int number, byte[] suffix) {
    header(0x02, name);
    int start = position;
    int32Value(0);
    raw(prefix, 0, prefix.length);
    decimal(number);
    raw(suffix, 0, suffix.length);
    byteValue(0);
    INT32.set(buffer, start, position - start - 4);
  }

  /** The ASCII digits of a non-negative number. */
  void decimal(int number) {
    int digits = digits(number);
    ensure(digits);
    for (int i = position + digits - 1; i >= position; i--) {
      int rest = number / 10;
      buffer[i] = (byte) ('0' + number - rest * 10);
      number = rest;
    }
    position += digits;
  }

  private static int digits(int number) {
    int digits = 1;
    for (int bound = 10; digits < 10 && number >= bound; bound *= 10) {
      digits++;
    }
    return digits;
  }

  /** The low {@code digits} hex digits of {@code value}, upper case, as ASCII. */
  void hex(long value, int digits) {
    ensure(digits);
    for (int i = position + digits - 1; i >= position; i--) {
      buffer[i] = HEX_DIGITS[(int) (value & 0xF)];
      value >>>= 4;
    }
    position += digits;
  }

  /** The hex of the ASCII decimal digits of a non-negative number: each digit d is the byte 0x3d. */
  void hexOfDecimal(int number) {
    int start = position;
    decimal(number);
    int digits = position - start;
    ensure(digits);
    for (int i = digits - 1; i >= 0; i--) {
      buffer[start + 2 * i + 1] = buffer[start + i];
      buffer[start + 2 * i] = '3';
    }
    position = start + 2 * digits;
  }

  void header(int type, byte[] name) {
    byteValue(type);
    raw(name, 0, name.length);
  }

  void byteValue(int value) {
    ensure(1);
    buffer[position++] = (byte) value;
  }

  void int32Value(int value) {
    ensure(4);
    INT32.set(buffer, position, value);
    position += 4;
  }

  void int64Value(long value) {
    ensure(8);
    INT64.set(buffer, position, value);
    position += 8;
  }

  void raw(byte[] source, int offset, int length) {
    ensure(length);
    System.arraycopy(source, offset, buffer, position, length);
    position += length;
  }

  void copyTo(int from, int length, byte[] target, int at) {
    System.arraycopy(buffer, from, target, at, length);
  }

  /** The int32 written at {@code at}, such as a document's length. */
  int int32At(int at) {
    return (int) INT32.get(buffer, at);
  }

  void patchInt32(int at, int value) {
    INT32.set(buffer, at, value);
  }

  void patchInt64(int at, long value) {
    INT64.set(buffer, at, value);
  }

  static int int32At(byte[] bytes, int at) {
    return (int) INT32.get(bytes, at);
  }

  static void putInt32(byte[] bytes, int at, int value) {
    INT32.set(bytes, at, value);
  }

  static void putInt64(byte[] bytes, int at, long value) {
    INT64.set(bytes, at, value);
  }

  private void ensure(int more) {
    if (position + more > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, position + more));
    }
  }
}
