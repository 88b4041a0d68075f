package io.mongocdc.decode;

import static io.mongocdc.decode.BsonReads.indexOfZero;
import static io.mongocdc.decode.BsonReads.readInt;
import static io.mongocdc.decode.BsonReads.readLong;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.bson.types.Decimal128;

/**
 * Transcodes one BSON document from its raw bytes straight to UTF-8 JSON, in a single pass and
 * without building a document tree or going through the driver's reader and writer.
 *
 * <p>The JSON for each type, in both {@link JsonRenderMode modes}, is specified in
 * {@code docs/json-rendering.md}. Text is never a reason to fail: ill-formed UTF-8 becomes
 * U+FFFD and NUL becomes U+2400 (see {@link Utf8JsonOutput}). Structure is: bytes that are not
 * a well-formed BSON document (truncated, lengths that disagree, unknown types) raise a
 * {@link DocumentRenderException} naming the byte offset, the field path and the reason.
 *
 * <p>Stateless and thread-safe; the output buffer and frame stack are the caller's.
 */
public final class BsonJsonTranscoder {

  // BSON element types (bsonspec.org).
  private static final int DOUBLE = 0x01;
  private static final int STRING = 0x02;
  private static final int DOCUMENT = 0x03;
  private static final int ARRAY = 0x04;
  private static final int BINARY = 0x05;
  private static final int UNDEFINED = 0x06;
  private static final int OBJECT_ID = 0x07;
  private static final int BOOLEAN = 0x08;
  private static final int DATE_TIME = 0x09;
  private static final int NULL = 0x0A;
  private static final int REGEX = 0x0B;
  private static final int DB_POINTER = 0x0C;
  private static final int JAVASCRIPT = 0x0D;
  private static final int SYMBOL = 0x0E;
  private static final int JAVASCRIPT_WITH_SCOPE = 0x0F;
  private static final int INT32 = 0x10;
  private static final int TIMESTAMP = 0x11;
  private static final int INT64 = 0x12;
  private static final int DECIMAL128 = 0x13;
  private static final int MIN_KEY = 0xFF;
  private static final int MAX_KEY = 0x7F;

  private static final int OLD_BINARY_SUBTYPE = 0x02;
  private static final int UUID_SUBTYPE = 0x04;

  private static final byte[] TRUE = ascii("true");
  private static final byte[] FALSE = ascii("false");
  private static final byte[] NULL_LITERAL = ascii("null");
  private static final byte[] OID_OPEN = ascii("{\"$oid\":\"");
  private static final byte[] QUOTE_BRACE = ascii("\"}");
  private static final byte[] DOUBLE_OPEN = ascii("{\"$numberDouble\":\"");
  private static final byte[] DECIMAL_OPEN = ascii("{\"$numberDecimal\":\"");
  private static final byte[] DATE_OPEN = ascii("{\"$date\":\"");
  private static final byte[] DATE_LONG_OPEN = ascii("{\"$date\":{\"$numberLong\":\"");
  private static final byte[] QUOTE_BRACE_BRACE = ascii("\"}}");
  private static final byte[] BINARY_OPEN = ascii("{\"$binary\":{\"base64\":\"");
  private static final byte[] BINARY_SUBTYPE = ascii("\",\"subType\":\"");
  private static final byte[] REGEX_OPEN = ascii("{\"$regularExpression\":{\"pattern\":\"");
  private static final byte[] REGEX_OPTIONS = ascii("\",\"options\":\"");
  private static final byte[] DB_POINTER_OPEN = ascii("{\"$dbPointer\":{\"$ref\":\"");
  private static final byte[] DB_POINTER_ID = ascii("\",\"$id\":{\"$oid\":\"");
  private static final byte[] DB_POINTER_CLOSE = ascii("\"}}}");
  private static final byte[] SIMPLE_REF_OPEN = ascii("{\"$ref\":\"");
  private static final byte[] SIMPLE_ID = ascii("\",\"$id\":\"");
  private static final byte[] CODE_OPEN = ascii("{\"$code\":\"");
  private static final byte[] SCOPE_OPEN = ascii("\",\"$scope\":{");
  private static final byte[] SYMBOL_OPEN = ascii("{\"$symbol\":\"");
  private static final byte[] TIMESTAMP_OPEN = ascii("{\"$timestamp\":{\"t\":");
  private static final byte[] SIMPLE_TIMESTAMP_OPEN = ascii("{\"t\":");
  private static final byte[] TIMESTAMP_I = ascii(",\"i\":");
  private static final byte[] BRACE_BRACE = ascii("}}");
  private static final byte[] MIN_KEY_JSON = ascii("{\"$minKey\":1}");
  private static final byte[] MAX_KEY_JSON = ascii("{\"$maxKey\":1}");
  private static final byte[] UNDEFINED_JSON = ascii("{\"$undefined\":true}");
  private static final byte[] NAN = ascii("NaN");
  private static final byte[] INFINITY = ascii("Infinity");
  private static final byte[] NEGATIVE_INFINITY = ascii("-Infinity");

  private final JsonRenderMode mode;
  private final boolean simplified;

  public BsonJsonTranscoder(JsonRenderMode mode) {
    this.mode = Objects.requireNonNull(mode, "mode");
    this.simplified = mode == JsonRenderMode.SIMPLIFIED;
  }

  public JsonRenderMode mode() {
    return mode;
  }

  /**
   * Appends the JSON for the BSON document in {@code bson[offset, offset + length)} to
   * {@code out}.
   *
   * @throws DocumentRenderException if the bytes are not one well-formed BSON document; the
   *     message gives the byte offset (from the document's start), the field path and why
   */
  public void transcode(byte[] bson, int offset, int length, Utf8JsonOutput out) {
    transcode(bson, offset, length, out, new BsonFrameStack());
  }

  void transcode(byte[] bson, int offset, int length, Utf8JsonOutput out, BsonFrameStack frames) {
    Objects.checkFromIndexSize(offset, length, bson.length);
    frames.clear();
    new Walk(bson, offset, out, frames).run(length);
  }

  /** One document's walk: the cursor state that error messages need. */
  private final class Walk {
    private final byte[] b;
    private final int base;
    private final Utf8JsonOutput out;
    private final BsonFrameStack frames;
    /** Offset of the current element's name, for error messages; -1 before the first. */
    private int key = -1;

    Walk(byte[] b, int base, Utf8JsonOutput out, BsonFrameStack frames) {
      this.b = b;
      this.base = base;
      this.out = out;
      this.frames = frames;
    }

    void run(int length) {
      if (length < 5) {
        throw corrupt(base, "a document needs at least 5 bytes, got " + length);
      }
      int declared = readInt(b, base);
      if (declared != length) {
        throw corrupt(base, "length prefix says " + declared + " bytes but the document has " + length);
      }
      int terminator = base + length - 1;
      if (b[terminator] != 0) {
        throw corrupt(terminator, "document does not end with a 0x00 byte");
      }
      frames.push(terminator, -1, BsonFrameStack.DOCUMENT);
      out.writeByte('{');
      int pos = base + 4;
      while (true) {
        int term = frames.terminator();
        if (pos == term) {
          pos++;
          byte kind = frames.kind();
          frames.pop();
          if (kind == BsonFrameStack.ARRAY) {
            out.writeByte(']');
          } else if (kind == BsonFrameStack.SCOPE) {
            out.writeBytes(BRACE_BRACE);
          } else {
            out.writeByte('}');
          }
          if (frames.depth() == 0) {
            return;
          }
          continue;
        }
        int type = b[pos] & 0xFF;
        if (type == 0) {
          throw corrupt(pos, "0x00 type byte " + (term - pos) + " bytes before the end of the document");
        }
        key = pos + 1;
        int keyEnd = cStringEnd(key, term);
        int last = out.lastByte();
        if (last != '{' && last != '[') {
          out.writeByte(',');
        }
        if (frames.kind() != BsonFrameStack.ARRAY) {
          out.writeQuoted(b, key, keyEnd);
          out.writeByte(':');
        }
        pos = value(type, keyEnd + 1, term);
      }
    }

    /** Writes the value of the given type at {@code pos}; returns the offset after it. */
    private int value(int type, int pos, int term) {
      switch (type) {
        case DOUBLE:
          need(pos, 8, term, "double");
          writeDouble(Double.longBitsToDouble(readLong(b, pos)));
          return pos + 8;
        case STRING: {
          int end = stringEnd(pos, term, "string");
          out.writeQuoted(b, pos + 4, end - 1);
          return end;
        }
        case DOCUMENT:
        case ARRAY: {
          need(pos, 5, term, "embedded document");
          int len = readInt(b, pos);
          if (len < 5 || len > term - pos) {
            throw corrupt(pos, "embedded " + (type == ARRAY ? "array" : "document") + " length " + len
                + " does not fit in its parent (" + (term - pos) + " bytes left)");
          }
          int childTerm = pos + len - 1;
          if (b[childTerm] != 0) {
            throw corrupt(childTerm, "embedded document does not end with a 0x00 byte");
          }
          frames.push(childTerm, key, type == ARRAY ? BsonFrameStack.ARRAY : BsonFrameStack.DOCUMENT);
          out.writeByte(type == ARRAY ? '[' : '{');
          return pos + 4;
        }
        case BINARY:
          return binary(pos, term);
        case UNDEFINED:
          out.writeBytes(simplified ? NULL_LITERAL : UNDEFINED_JSON);
          return pos;
        case OBJECT_ID:
          need(pos, 12, term, "ObjectId");
          writeObjectId(pos);
          return pos + 12;
        case BOOLEAN: {
          need(pos, 1, term, "boolean");
          int v = b[pos];
          if (v != 0 && v != 1) {
            throw corrupt(pos, "boolean byte is " + v + ", not 0 or 1");
          }
          out.writeBytes(v == 1 ? TRUE : FALSE);
          return pos + 1;
        }
        case DATE_TIME:
          need(pos, 8, term, "datetime");
          writeDate(readLong(b, pos));
          return pos + 8;
        case NULL:
          out.writeBytes(NULL_LITERAL);
          return pos;
        case REGEX:
          return regex(pos, term);
        case DB_POINTER:
          return dbPointer(pos, term);
        case JAVASCRIPT: {
          int end = stringEnd(pos, term, "JavaScript code");
          if (simplified) {
            out.writeQuoted(b, pos + 4, end - 1);
          } else {
            out.writeBytes(CODE_OPEN);
            out.writeStringContent(b, pos + 4, end - 1);
            out.writeBytes(QUOTE_BRACE);
          }
          return end;
        }
        case SYMBOL: {
          int end = stringEnd(pos, term, "symbol");
          if (simplified) {
            out.writeQuoted(b, pos + 4, end - 1);
          } else {
            out.writeBytes(SYMBOL_OPEN);
            out.writeStringContent(b, pos + 4, end - 1);
            out.writeBytes(QUOTE_BRACE);
          }
          return end;
        }
        case JAVASCRIPT_WITH_SCOPE:
          return codeWithScope(pos, term);
        case INT32:
          need(pos, 4, term, "int32");
          out.writeLong(readInt(b, pos));
          return pos + 4;
        case TIMESTAMP: {
          need(pos, 8, term, "timestamp");
          // Little-endian uint64: increment in the low word, seconds in the high word.
          long v = readLong(b, pos);
          out.writeBytes(simplified ? SIMPLE_TIMESTAMP_OPEN : TIMESTAMP_OPEN);
          out.writeLong(v >>> 32);
          out.writeBytes(TIMESTAMP_I);
          out.writeLong(v & 0xFFFF_FFFFL);
          if (simplified) {
            out.writeByte('}');
          } else {
            out.writeBytes(BRACE_BRACE);
          }
          return pos + 8;
        }
        case INT64:
          need(pos, 8, term, "int64");
          out.writeLong(readLong(b, pos));
          return pos + 8;
        case DECIMAL128:
          need(pos, 16, term, "Decimal128");
          writeDecimal(Decimal128Values.fromBid(readLong(b, pos + 8), readLong(b, pos)));
          return pos + 16;
        case MIN_KEY:
          out.writeBytes(MIN_KEY_JSON);
          return pos;
        case MAX_KEY:
          out.writeBytes(MAX_KEY_JSON);
          return pos;
        default:
          throw corrupt(key - 1, String.format("unknown BSON type 0x%02x", type));
      }
    }

    private void writeDouble(double d) {
      if (Double.isFinite(d)) {
        writeFiniteDouble(d);
      } else if (simplified) {
        out.writeByte('"');
        out.writeBytes(nonFinite(d));
        out.writeByte('"');
      } else {
        out.writeBytes(DOUBLE_OPEN);
        out.writeBytes(nonFinite(d));
        out.writeBytes(QUOTE_BRACE);
      }
    }

    /**
     * A finite double as a JSON number that always has a fraction, so readers (the driver's
     * included) parse it back as a double, not an integer: relaxed Extended JSON's
     * "non-integer". The digits are Java's shortest-uniquely-identifying ones, so the value
     * round-trips exactly. A large one is written out in full ({@code 10000000000000000000.0},
     * not {@code 1.0E19}): {@code jsonb} keeps a number's fraction digits but prints it without
     * its exponent, so only then does {@code doc} still say it is a double when it is read back
     * (as the typed-column backfill reads it).
     */
    private void writeFiniteDouble(double d) {
      // Fast path for the common integral values: Double.toString would give the same "N.0".
      if (d == (long) d && Math.abs(d) < 1e7 && (d != 0 || 1 / d > 0)) {
        out.writeLong((long) d);
        out.writeByte('.');
        out.writeByte('0');
        return;
      }
      String text = Double.toString(d);
      int exponent = text.indexOf('E');
      if (exponent > 0 && text.charAt(exponent + 1) != '-') {
        text = new BigDecimal(text).toPlainString();
        text = text.indexOf('.') < 0 ? text + ".0" : text;
      }
      out.ensure(text.length());
      for (int i = 0; i < text.length(); i++) {
        out.writeByte(text.charAt(i));
      }
    }

    private void writeDecimal(Decimal128 value) {
      String text = value.toString();
      if (simplified) {
        out.writeByte('"');
      } else {
        out.writeBytes(DECIMAL_OPEN);
      }
      for (int i = 0; i < text.length(); i++) {
        out.writeByte(text.charAt(i));
      }
      if (simplified) {
        out.writeByte('"');
      } else {
        out.writeBytes(QUOTE_BRACE);
      }
    }

    private void writeDate(long millis) {
      if (simplified) {
        out.writeByte('"');
        IsoDateTimeFormat.write(millis, out);
        out.writeByte('"');
      } else if (millis >= 0 && millis <= IsoDateTimeFormat.LAST_MILLIS_OF_9999) {
        out.writeBytes(DATE_OPEN);
        IsoDateTimeFormat.write(millis, out);
        out.writeBytes(QUOTE_BRACE);
      } else {
        out.writeBytes(DATE_LONG_OPEN);
        out.writeLong(millis);
        out.writeBytes(QUOTE_BRACE_BRACE);
      }
    }

    private void writeObjectId(int pos) {
      if (simplified) {
        out.writeByte('"');
        out.writeHex(b, pos, 12);
        out.writeByte('"');
      } else {
        out.writeBytes(OID_OPEN);
        out.writeHex(b, pos, 12);
        out.writeBytes(QUOTE_BRACE);
      }
    }

    private int binary(int pos, int term) {
      need(pos, 5, term, "binary");
      int len = readInt(b, pos);
      if (len < 0 || len > term - pos - 5) {
        throw corrupt(pos, "binary length " + len + " does not fit in its document ("
            + (term - pos - 5) + " bytes left)");
      }
      int subtype = b[pos + 4] & 0xFF;
      int data = pos + 5;
      int dataLen = len;
      if (subtype == OLD_BINARY_SUBTYPE) {
        // The deprecated subtype 2 repeats the length inside the payload; Extended JSON (and
        // the driver) show only the bytes after it.
        if (len < 4) {
          throw corrupt(pos, "binary subtype 2 inner length missing: the value has only " + len + " bytes");
        }
        int inner = readInt(b, data);
        if (inner != len - 4) {
          throw corrupt(pos, "binary subtype 2 inner length " + inner + " does not match its outer length " + len);
        }
        data += 4;
        dataLen -= 4;
      }
      if (simplified) {
        out.writeByte('"');
        if (subtype == UUID_SUBTYPE && dataLen == 16) {
          writeUuid(data);
        } else {
          out.writeBase64(b, data, dataLen);
        }
        out.writeByte('"');
      } else {
        out.writeBytes(BINARY_OPEN);
        out.writeBase64(b, data, dataLen);
        out.writeBytes(BINARY_SUBTYPE);
        out.writeHexByte(subtype);
        out.writeBytes(QUOTE_BRACE_BRACE);
      }
      return pos + 5 + len;
    }

    private void writeUuid(int pos) {
      out.writeHex(b, pos, 4);
      out.writeByte('-');
      out.writeHex(b, pos + 4, 2);
      out.writeByte('-');
      out.writeHex(b, pos + 6, 2);
      out.writeByte('-');
      out.writeHex(b, pos + 8, 2);
      out.writeByte('-');
      out.writeHex(b, pos + 10, 6);
    }

    private int regex(int pos, int term) {
      int patternEnd = cStringEnd(pos, term);
      int optionsEnd = cStringEnd(patternEnd + 1, term);
      if (simplified) {
        out.writeByte('"');
        out.writeByte('/');
        out.writeStringContent(b, pos, patternEnd);
        out.writeByte('/');
        writeSortedOptions(patternEnd + 1, optionsEnd);
        out.writeByte('"');
      } else {
        out.writeBytes(REGEX_OPEN);
        out.writeStringContent(b, pos, patternEnd);
        out.writeBytes(REGEX_OPTIONS);
        writeSortedOptions(patternEnd + 1, optionsEnd);
        out.writeBytes(QUOTE_BRACE_BRACE);
      }
      return optionsEnd + 1;
    }

    /** Extended JSON requires regex options in alphabetical order, whatever order BSON has. */
    private void writeSortedOptions(int from, int to) {
      int n = to - from;
      boolean ascii = true;
      for (int i = from; i < to; i++) {
        ascii &= b[i] >= 0;
      }
      if (ascii) {
        byte[] options = new byte[n];
        System.arraycopy(b, from, options, 0, n);
        java.util.Arrays.sort(options);
        out.writeStringContent(options, 0, n);
      } else {
        // Options are ASCII letters in practice; anything else is sorted by code point.
        String text = new String(b, from, n, StandardCharsets.UTF_8);
        StringBuilder sorted = new StringBuilder();
        text.codePoints().sorted().forEach(sorted::appendCodePoint);
        byte[] bytes = sorted.toString().getBytes(StandardCharsets.UTF_8);
        out.writeStringContent(bytes, 0, bytes.length);
      }
    }

    private int dbPointer(int pos, int term) {
      int end = stringEnd(pos, term, "DBPointer namespace");
      need(end, 12, term, "DBPointer ObjectId");
      out.writeBytes(simplified ? SIMPLE_REF_OPEN : DB_POINTER_OPEN);
      out.writeStringContent(b, pos + 4, end - 1);
      out.writeBytes(simplified ? SIMPLE_ID : DB_POINTER_ID);
      out.writeHex(b, end, 12);
      out.writeBytes(simplified ? QUOTE_BRACE : DB_POINTER_CLOSE);
      return end + 12;
    }

    private int codeWithScope(int pos, int term) {
      need(pos, 4, term, "code with scope");
      int total = readInt(b, pos);
      // int32 total + string (int32 length, at least the NUL) + scope (at least 5 bytes).
      if (total < 14 || total > term - pos) {
        throw corrupt(pos, "code with scope length " + total + " is too short or does not fit in its document");
      }
      int end = pos + total;
      int codeEnd = stringEnd(pos + 4, end, "code with scope's code");
      int scopeLen = end - codeEnd >= 4 ? readInt(b, codeEnd) : -1;
      if (scopeLen < 5 || codeEnd + scopeLen != end) {
        throw corrupt(codeEnd, "code with scope's scope length " + scopeLen + " does not match its total length " + total);
      }
      if (b[end - 1] != 0) {
        throw corrupt(end - 1, "code with scope's scope does not end with a 0x00 byte");
      }
      out.writeBytes(CODE_OPEN);
      out.writeStringContent(b, pos + 8, codeEnd - 1);
      out.writeBytes(SCOPE_OPEN);
      frames.push(end - 1, key, BsonFrameStack.SCOPE);
      return codeEnd + 4;
    }

    /** Checks a length-prefixed BSON string at {@code pos}; returns the offset after its NUL. */
    private int stringEnd(int pos, int term, String what) {
      need(pos, 4, term, what + " length");
      int len = readInt(b, pos);
      if (len < 1) {
        throw corrupt(pos, what + " length " + len + " is not positive");
      }
      if (len > term - pos - 4) {
        throw corrupt(pos, what + " length " + len + " runs past the end of its document ("
            + (term - pos - 4) + " bytes left)");
      }
      int end = pos + 4 + len;
      if (b[end - 1] != 0) {
        throw corrupt(end - 1, what + " does not end with a 0x00 byte");
      }
      return end;
    }

    private void need(int pos, int n, int term, String what) {
      if (n > term - pos) {
        throw corrupt(pos, what + " needs " + n + " bytes but only " + Math.max(0, term - pos)
            + " remain before the end of its document");
      }
    }

    /** The offset of the NUL ending the name or C string at {@code from}. */
    private int cStringEnd(int from, int term) {
      int end = indexOfZero(b, from, term);
      if (end < 0) {
        throw corrupt(from, "name or C string is not terminated before the end of its document");
      }
      return end;
    }

    private DocumentRenderException corrupt(int at, String why) {
      return new DocumentRenderException(
          "cannot render BSON document: " + why + " (at byte " + (at - base) + ", field " + path() + ")");
    }

    /** The dotted path of the element being read, for error messages ("(top)" before any). */
    private String path() {
      StringBuilder path = new StringBuilder();
      for (int level = 1; level < frames.depth(); level++) {
        appendName(path, frames.keyOffsetAt(level));
      }
      boolean keyOpenedTopFrame = frames.depth() > 1 && frames.keyOffsetAt(frames.depth() - 1) == key;
      if (key >= 0 && !keyOpenedTopFrame) {
        appendName(path, key);
      }
      return path.length() == 0 ? "(top)" : "'" + path + "'";
    }

    private void appendName(StringBuilder path, int offset) {
      int end = offset;
      while (end < b.length && b[end] != 0 && end - offset < 100) {
        end++;
      }
      if (path.length() > 0) {
        path.append('.');
      }
      path.append(new String(b, offset, end - offset, StandardCharsets.UTF_8));
    }
  }

  private static byte[] nonFinite(double d) {
    return Double.isNaN(d) ? NAN : d > 0 ? INFINITY : NEGATIVE_INFINITY;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
