package io.mongocdc.privacy;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Where one element of a raw BSON document lies: its type byte at {@code start}, its name, then
 * its value from {@code valueStart} to {@code valueEnd}. Sizes are checked against the enclosing
 * document, so malformed bytes are an error, never a read past them.
 */
final class Element {

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  int start;
  byte type;
  int nameEnd;
  int valueStart;
  int valueEnd;

  /**
   * This element moved to the one at {@code p}, inside a document whose terminating 0x00 is at
   * {@code end}: one per document level is enough, so walking a document allocates nothing per field.
   */
  Element read(byte[] b, int p, int end) {
    byte type = b[p];
    int nameEnd = zeroAt(b, p + 1, end);
    if (nameEnd < 0) {
      throw malformed(p, "a field name without its end");
    }
    int v = nameEnd + 1;
    int valueEnd = switch (type) {
      case 0x01, 0x09, 0x11, 0x12 -> v + 8;
      case 0x02, 0x0D, 0x0E -> v + 4 + length(b, v, end, p);
      case 0x03, 0x04, 0x0F -> v + length(b, v, end, p);
      case 0x05 -> v + 5 + length(b, v, end, p);
      case 0x06, 0x0A, (byte) 0xFF, 0x7F -> v;
      case 0x07 -> v + 12;
      case 0x08 -> v + 1;
      case 0x0B -> cstringEnd(b, cstringEnd(b, v, end, p), end, p);
      case 0x0C -> v + 4 + length(b, v, end, p) + 12;
      case 0x10 -> v + 4;
      case 0x13 -> v + 16;
      default -> throw malformed(p, "unknown type 0x" + Integer.toHexString(type & 0xFF));
    };
    if (valueEnd > end || valueEnd < v) {
      throw malformed(p, "a value that runs past its document");
    }
    this.start = p;
    this.type = type;
    this.nameEnd = nameEnd;
    this.valueStart = v;
    this.valueEnd = valueEnd;
    return this;
  }

  /**
   * The offset of the first 0x00 in {@code b[from, to)}, -1 if none: eight bytes at a time while
   * eight remain, as most field names are about that long and a byte loop branches on each.
   */
  static int zeroAt(byte[] b, int from, int to) {
    int i = from;
    for (; i + Long.BYTES <= to; i += Long.BYTES) {
      long word = (long) LONGS.get(b, i);
      // A byte's high bit set here where that byte is 0x00; the lowest such bit is exact.
      long zeros = (word - 0x0101010101010101L) & ~word & 0x8080808080808080L;
      if (zeros != 0) {
        return i + (Long.numberOfTrailingZeros(zeros) >>> 3);
      }
    }
    for (; i < to; i++) {
      if (b[i] == 0) {
        return i;
      }
    }
    return -1;
  }

  String name(byte[] b) {
    return new String(b, start + 1, nameEnd - start - 1, StandardCharsets.UTF_8);
  }

  boolean nameEquals(byte[] b, byte[] name) {
    return nameEnd - start - 1 == name.length && startsWith(b, start + 1, name);
  }

  /**
   * Whether {@code b} holds all of {@code name} from {@code from} (which the caller knows has room):
   * field names are mostly 5 to 16 bytes, which two overlapping eight-byte words cover.
   */
  static boolean startsWith(byte[] b, int from, byte[] name) {
    int length = name.length;
    if (length < Long.BYTES) {
      for (int i = 0; i < length; i++) {
        if (b[from + i] != name[i]) {
          return false;
        }
      }
      return true;
    }
    int last = length - Long.BYTES;
    for (int i = 0; i < last; i += Long.BYTES) {
      if ((long) LONGS.get(b, from + i) != (long) LONGS.get(name, i)) {
        return false;
      }
    }
    return (long) LONGS.get(b, from + last) == (long) LONGS.get(name, last);
  }

  boolean isId(byte[] b) {
    return nameEnd - start == 4 && b[start + 1] == '_' && b[start + 2] == 'i' && b[start + 3] == 'd';
  }

  static int readInt(byte[] b, int p) {
    return (int) INTS.get(b, p);
  }

  static long readLong(byte[] b, int p) {
    return (long) LONGS.get(b, p);
  }

  private static int length(byte[] b, int v, int end, int p) {
    if (v + 4 > end) {
      throw malformed(p, "a length that runs past its document");
    }
    int length = readInt(b, v);
    if (length < 0) {
      throw malformed(p, "a negative length");
    }
    return length;
  }

  private static int cstringEnd(byte[] b, int from, int end, int p) {
    for (int i = from; i < end; i++) {
      if (b[i] == 0) {
        return i + 1;
      }
    }
    throw malformed(p, "a string without its end");
  }

  private static IllegalArgumentException malformed(int p, String what) {
    return new IllegalArgumentException("malformed BSON: the element at byte " + p + " has " + what);
  }
}
