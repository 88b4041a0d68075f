package io.mongocdc.privacy;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.bson.RawBsonDocument;

/**
 * The bytes of a BSON document being written: appended, with document sizes filled in at their end;
 * and what the one walk that writes them keeps as it goes (an element reader per level, the values
 * hashed so far).
 */
final class Output {

  /** Each byte's two lowercase hex digits, as the little-endian short that writes them in order. */
  private static final short[] HEX_PAIRS = new short[256];
  private static final VarHandle SHORTS = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

  static {
    byte[] digits = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    for (int value = 0; value < 256; value++) {
      HEX_PAIRS[value] = (short) (digits[value >> 4] | digits[value & 0xF] << 8);
    }
  }

  private byte[] bytes;
  private int size;
  /** The values this document hashed so far (type byte, then the value's bytes) and their hashes. */
  private byte[][] hashedValues;
  private byte[][] hashes;
  private int hashCount;
  /** One element reader per level of the walk, so walking a document allocates none. */
  private Element[] elements = new Element[8];

  Output(int expected) {
    // Room for a few hashes, which are longer than most values they replace.
    bytes = new byte[Math.max(64, expected + expected / 8)];
  }

  void oneByte(byte value) {
    ensure(1);
    bytes[size++] = value;
  }

  void bytes(byte[] from, int offset, int length) {
    ensure(length);
    System.arraycopy(from, offset, bytes, size, length);
    size += length;
  }

  /** Leaves room for a document's size; @return where it goes, for {@link #end} */
  int reserveInt() {
    ensure(4);
    size += 4;
    return size - 4;
  }

  /** Ends the document whose size goes at {@code sizeAt}. */
  void end(int sizeAt) {
    oneByte((byte) 0);
    putInt(sizeAt, size - sizeAt);
  }

  /** A BSON string value of {@code bytes} as lowercase hex: its length, the hex digits and the 0x00. */
  void hex(byte[] bytes) {
    ensure(4 + 2 * bytes.length + 1);
    putInt(size, 2 * bytes.length + 1);
    // In locals: written through the fields, each digit would reload them (the arrays could alias).
    byte[] out = this.bytes;
    int at = size + 4;
    for (byte value : bytes) {
      SHORTS.set(out, at, HEX_PAIRS[value & 0xFF]);
      at += 2;
    }
    out[at] = 0;
    size = at + 1;
  }

  /** The hash this output already wrote for the value of {@code type} at {@code b[from, to)}; null if none. */
  byte[] hashedBefore(byte[] b, byte type, int from, int to) {
    for (int i = 0; i < hashCount; i++) {
      byte[] value = hashedValues[i];
      if (value.length == to - from + 1 && value[0] == type && Arrays.equals(value, 1, value.length, b, from, to)) {
        return hashes[i];
      }
    }
    return null;
  }

  /** Keeps a value's hash for {@link #hashedBefore} (the first few of a document only). */
  void rememberHash(byte[] b, byte type, int from, int to, byte[] hash) {
    if (hashedValues == null) {
      hashedValues = new byte[4][];
      hashes = new byte[4][];
    }
    if (hashCount == hashedValues.length) {
      return;
    }
    byte[] value = new byte[to - from + 1];
    value[0] = type;
    System.arraycopy(b, from, value, 1, to - from);
    hashedValues[hashCount] = value;
    hashes[hashCount++] = hash;
  }

  /**
   * The element reader of the walk's level {@code depth}: a document's fields are read with it, and
   * the documents inside them with the next level's, so a field stays read while its value is walked.
   */
  Element element(int depth) {
    if (depth >= elements.length) {
      elements = Arrays.copyOf(elements, depth * 2);
    }
    Element element = elements[depth];
    return element != null ? element : (elements[depth] = new Element());
  }

  RawBsonDocument toDocument() {
    return new RawBsonDocument(bytes, 0, size);
  }

  private void putInt(int at, int value) {
    bytes[at] = (byte) value;
    bytes[at + 1] = (byte) (value >> 8);
    bytes[at + 2] = (byte) (value >> 16);
    bytes[at + 3] = (byte) (value >> 24);
  }

  private void ensure(int more) {
    if (size + more > bytes.length) {
      bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
    }
  }
}
