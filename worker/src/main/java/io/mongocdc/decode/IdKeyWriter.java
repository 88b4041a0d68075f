package io.mongocdc.decode;

import static io.mongocdc.decode.BsonReads.indexOfZero;
import static io.mongocdc.decode.BsonReads.readInt;
import static io.mongocdc.decode.BsonReads.readLong;

import java.util.Arrays;
import java.util.Base64;

/**
 * Writes the key text of {@code _id} values from raw BSON bytes (grammar in
 * {@code docs/id-keys.md}). Every form starts with a character that tells its type, strings
 * are escaped so they cannot end early, and invalid UTF-8 is escaped byte by byte instead of
 * being replaced, so the text is injective. One instance per call; not thread-safe.
 */
final class IdKeyWriter {

  /** MongoDB refuses documents nested deeper than 100-200 levels; anything deeper is corrupt. */
  private static final int MAX_DEPTH = 1000;
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private final byte[] b;
  private final int base;
  private final StringBuilder text = new StringBuilder(32);

  IdKeyWriter(byte[] bytes, int base) {
    this.b = bytes;
    this.base = base;
  }

  /** The key text of the field {@code name} of the document at {@code offset}. */
  String fieldOf(int offset, int length, byte[] name) {
    int term = checkDocument(offset, length);
    int pos = offset + 4;
    while (pos < term) {
      int type = b[pos] & 0xFF;
      int nameEnd = cStringEnd(pos + 1, term);
      if (nameEnd - pos - 1 == name.length && Arrays.equals(b, pos + 1, nameEnd, name, 0, name.length)) {
        value(type, nameEnd + 1, term, 0);
        return text.toString();
      }
      pos = skip(type, nameEnd + 1, term);
    }
    throw new DocumentRenderException("document has no " + new String(name, java.nio.charset.StandardCharsets.UTF_8) + " field");
  }

  /** The key text of the whole document at {@code offset}. */
  String document(int offset, int length) {
    checkDocument(offset, length);
    documentValue(offset, offset + length - 1, false, 0);
    return text.toString();
  }

  /** A Java string (already decoded) with the same escaping as {@link #string}. */
  static String quote(String value) {
    StringBuilder text = new StringBuilder(value.length() + 2).append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"' || c == '\\') {
        text.append('\\').append(c);
      } else if (c < 0x20) {
        appendUnicodeEscape(text, c);
      } else if (Character.isHighSurrogate(c) && i + 1 < value.length()
          && Character.isLowSurrogate(value.charAt(i + 1))) {
        text.append(c).append(value.charAt(++i));
      } else if (Character.isSurrogate(c)) {
        appendUnicodeEscape(text, c); // a lone surrogate is not text; keep it distinct
      } else {
        text.append(c);
      }
    }
    return text.append('"').toString();
  }

  private int checkDocument(int offset, int length) {
    if (length < 5 || readInt(b, offset) != length || b[offset + length - 1] != 0) {
      throw corrupt(offset, "not a well-formed BSON document");
    }
    return offset + length - 1;
  }

  /** Writes the value at {@code pos}; returns the offset after it. */
  private int value(int type, int pos, int term, int depth) {
    switch (type) {
      case 0x01 -> {
        need(pos, 8, term);
        text.append(CanonicalNumber.ofDouble(Double.longBitsToDouble(readLong(b, pos))));
        return pos + 8;
      }
      case 0x02, 0x0E -> { // string; a symbol equals the string with the same characters
        int end = stringEnd(pos, term);
        string(pos + 4, end - 1);
        return end;
      }
      case 0x03, 0x04 -> {
        int end = embedded(pos, term);
        documentValue(pos, end - 1, type == 0x04, depth + 1);
        return end;
      }
      case 0x05 -> {
        need(pos, 5, term);
        int len = readInt(b, pos);
        if (len < 0 || len > term - pos - 5) {
          throw corrupt(pos, "binary length " + len + " does not fit");
        }
        // MongoDB compares binary by length, subtype, then bytes: all of the stored bytes,
        // including subtype 2's inner length, are part of the key.
        text.append("BinData(").append(b[pos + 4] & 0xFF).append(",\"")
            .append(Base64.getEncoder().encodeToString(Arrays.copyOfRange(b, pos + 5, pos + 5 + len)))
            .append("\")");
        return pos + 5 + len;
      }
      case 0x06 -> {
        text.append("undefined");
        return pos;
      }
      case 0x07 -> {
        need(pos, 12, term);
        appendHex(pos, 12);
        return pos + 12;
      }
      case 0x08 -> {
        need(pos, 1, term);
        text.append(b[pos] != 0 ? "true" : "false");
        return pos + 1;
      }
      case 0x09 -> {
        need(pos, 8, term);
        Utf8JsonOutput iso = new Utf8JsonOutput(32);
        IsoDateTimeFormat.write(readLong(b, pos), iso);
        text.append("Date(").append(iso.toUtf8String()).append(')');
        return pos + 8;
      }
      case 0x0A -> {
        text.append("null");
        return pos;
      }
      case 0x0B -> {
        // Options stay in stored order: MongoDB compares them as stored.
        int patternEnd = cStringEnd(pos, term);
        int optionsEnd = cStringEnd(patternEnd + 1, term);
        text.append("Regex(");
        string(pos, patternEnd);
        text.append(',');
        string(patternEnd + 1, optionsEnd);
        text.append(')');
        return optionsEnd + 1;
      }
      case 0x0C -> {
        int end = stringEnd(pos, term);
        need(end, 12, term);
        text.append("DBPointer(");
        string(pos + 4, end - 1);
        text.append(',');
        appendHex(end, 12);
        text.append(')');
        return end + 12;
      }
      case 0x0D -> {
        int end = stringEnd(pos, term);
        text.append("Code(");
        string(pos + 4, end - 1);
        text.append(')');
        return end;
      }
      case 0x0F -> {
        need(pos, 4, term);
        int total = readInt(b, pos);
        if (total < 14 || total > term - pos) {
          throw corrupt(pos, "code with scope length " + total + " does not fit");
        }
        int codeEnd = stringEnd(pos + 4, pos + total);
        int scopeEnd = embedded(codeEnd, pos + total);
        if (scopeEnd != pos + total) {
          throw corrupt(codeEnd, "code with scope lengths disagree");
        }
        text.append("CodeWScope(");
        string(pos + 8, codeEnd - 1);
        text.append(',');
        documentValue(codeEnd, scopeEnd - 1, false, depth + 1);
        text.append(')');
        return scopeEnd;
      }
      case 0x10 -> {
        need(pos, 4, term);
        text.append(readInt(b, pos));
        return pos + 4;
      }
      case 0x11 -> {
        need(pos, 8, term);
        long v = readLong(b, pos);
        text.append("Timestamp(").append(v >>> 32).append(',').append(v & 0xFFFF_FFFFL).append(')');
        return pos + 8;
      }
      case 0x12 -> {
        need(pos, 8, term);
        text.append(readLong(b, pos));
        return pos + 8;
      }
      case 0x13 -> {
        need(pos, 16, term);
        text.append(CanonicalNumber.ofDecimal128(
            Decimal128Values.fromBid(readLong(b, pos + 8), readLong(b, pos))));
        return pos + 16;
      }
      case 0xFF -> {
        text.append("MinKey");
        return pos;
      }
      case 0x7F -> {
        text.append("MaxKey");
        return pos;
      }
      default -> throw corrupt(pos, String.format("unknown BSON type 0x%02x", type));
    }
  }

  /** A document or array whose 0x00 terminator is at {@code term}. */
  private void documentValue(int offset, int term, boolean array, int depth) {
    if (depth > MAX_DEPTH) {
      throw corrupt(offset, "_id nested deeper than " + MAX_DEPTH + " levels");
    }
    text.append(array ? '[' : '{');
    int pos = offset + 4;
    boolean first = true;
    while (pos < term) {
      int type = b[pos] & 0xFF;
      if (type == 0) {
        throw corrupt(pos, "0x00 type byte before the end of the document");
      }
      int nameEnd = cStringEnd(pos + 1, term);
      if (!first) {
        text.append(',');
      }
      first = false;
      if (!array) {
        string(pos + 1, nameEnd);
        text.append(':');
      }
      pos = value(type, nameEnd + 1, term, depth);
    }
    text.append(array ? ']' : '}');
  }

  private int skip(int type, int pos, int term) {
    int mark = text.length();
    int end = value(type, pos, term, 0);
    text.setLength(mark);
    return end;
  }

  /** UTF-8 bytes as a quoted string; ill-formed bytes become {@code \xHH} each. */
  private void string(int from, int to) {
    text.append('"');
    int i = from;
    while (i < to) {
      int c = b[i];
      if (c >= 0) {
        if (c == '"' || c == '\\') {
          text.append('\\').append((char) c);
        } else if (c < 0x20) {
          appendUnicodeEscape(text, (char) c);
        } else {
          text.append((char) c);
        }
        i++;
        continue;
      }
      int n = Utf8Validation.sequenceLength(b, i, to);
      if (n > 0) {
        text.appendCodePoint(decode(i, n));
        i += n;
      } else {
        for (int k = 0; k < -n; k++) {
          int v = b[i + k] & 0xFF;
          text.append("\\x").append(HEX[v >> 4]).append(HEX[v & 0xF]);
        }
        i -= n;
      }
    }
    text.append('"');
  }

  private int decode(int i, int n) {
    int cp = b[i] & (0xFF >> (n + 1));
    for (int k = 1; k < n; k++) {
      cp = cp << 6 | (b[i + k] & 0x3F);
    }
    return cp;
  }

  private static void appendUnicodeEscape(StringBuilder text, char c) {
    text.append("\\u")
        .append(HEX[c >> 12 & 0xF]).append(HEX[c >> 8 & 0xF])
        .append(HEX[c >> 4 & 0xF]).append(HEX[c & 0xF]);
  }

  private void appendHex(int pos, int len) {
    for (int i = pos; i < pos + len; i++) {
      text.append(HEX[(b[i] >> 4) & 0xF]).append(HEX[b[i] & 0xF]);
    }
  }

  /** Checks an embedded document at {@code pos}; returns the offset after it. */
  private int embedded(int pos, int term) {
    need(pos, 5, term);
    int len = readInt(b, pos);
    if (len < 5 || len > term - pos || b[pos + len - 1] != 0) {
      throw corrupt(pos, "embedded document length " + len + " does not fit");
    }
    return pos + len;
  }

  private int stringEnd(int pos, int term) {
    need(pos, 4, term);
    int len = readInt(b, pos);
    if (len < 1 || len > term - pos - 4 || b[pos + 4 + len - 1] != 0) {
      throw corrupt(pos, "string length " + len + " does not fit");
    }
    return pos + 4 + len;
  }

  private void need(int pos, int n, int term) {
    if (n > term - pos) {
      throw corrupt(pos, "value needs " + n + " bytes, " + Math.max(0, term - pos) + " remain");
    }
  }

  /** The offset of the NUL ending the name or C string at {@code from}. */
  private int cStringEnd(int from, int term) {
    int end = indexOfZero(b, from, term);
    if (end < 0) {
      throw corrupt(from, "C string not terminated");
    }
    return end;
  }

  private DocumentRenderException corrupt(int at, String why) {
    return new DocumentRenderException("cannot render _id key: " + why + " (at byte " + (at - base) + ")");
  }
}
