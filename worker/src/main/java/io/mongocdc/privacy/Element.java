package io.mongocdc.privacy;

import java.nio.charset.StandardCharsets;

/**
 * Where one element of a raw BSON document lies: its type byte at {@code start}, its name, then
 * its value from {@code valueStart} to {@code valueEnd}. Sizes are checked against the enclosing
 * document, so malformed bytes are an error, never a read past them.
 */
final class Element {

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
    int nameEnd = -1;
    for (int i = p + 1; i < end; i++) {
      if (b[i] == 0) {
        nameEnd = i;
        break;
      }
    }
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

  String name(byte[] b) {
    return new String(b, start + 1, nameEnd - start - 1, StandardCharsets.UTF_8);
  }

  boolean nameEquals(byte[] b, byte[] name) {
    if (nameEnd - start - 1 != name.length) {
      return false;
    }
    for (int i = 0; i < name.length; i++) {
      if (b[start + 1 + i] != name[i]) {
        return false;
      }
    }
    return true;
  }

  boolean isId(byte[] b) {
    return nameEnd - start == 4 && b[start + 1] == '_' && b[start + 2] == 'i' && b[start + 3] == 'd';
  }

  static int readInt(byte[] b, int p) {
    return (b[p] & 0xFF) | (b[p + 1] & 0xFF) << 8 | (b[p + 2] & 0xFF) << 16 | b[p + 3] << 24;
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
