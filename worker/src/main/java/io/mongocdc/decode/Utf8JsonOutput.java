package io.mongocdc.decode;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable byte buffer that JSON is written into as UTF-8, with the few primitives the
 * transcoder needs. One instance is reused per thread (see {@link TranscodingJsonRenderer}), so
 * rendering a document allocates nothing but the final String.
 *
 * <p>Not thread-safe.
 */
public final class Utf8JsonOutput {

  /** U+FFFD REPLACEMENT CHARACTER, written for each ill-formed UTF-8 subpart. */
  private static final byte[] REPLACEMENT = {(byte) 0xEF, (byte) 0xBF, (byte) 0xBD};

  /**
   * U+2400 SYMBOL FOR NULL, written for U+0000: PostgreSQL's jsonb rejects {@code \u0000}, and
   * this keeps the character's place and is visibly "a NUL was here".
   */
  private static final byte[] NUL_SUBSTITUTE = {(byte) 0xE2, (byte) 0x90, (byte) 0x80};

  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] BASE64 =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
          .getBytes(StandardCharsets.US_ASCII);

  /**
   * Per ASCII byte: 0 = copy as is, 1 = escape ({@code "}, {@code \}, controls), 2 = NUL.
   * Control characters must be escaped in JSON strings (RFC 8259 section 7).
   */
  private static final byte[] ASCII_CLASS = new byte[128];

  static {
    for (int c = 0; c < 0x20; c++) {
      ASCII_CLASS[c] = 1;
    }
    ASCII_CLASS['"'] = 1;
    ASCII_CLASS['\\'] = 1;
    ASCII_CLASS[0] = 2;
  }

  /** Input bytes escaped per capacity check in {@link #writeStringContent}. */
  private static final int CHUNK = 8192;

  private byte[] buf;
  private int size;

  public Utf8JsonOutput(int initialCapacity) {
    buf = new byte[Math.max(64, initialCapacity)];
  }

  /** Forgets the content, keeping the capacity. */
  public void reset() {
    size = 0;
  }

  public int size() {
    return size;
  }

  public int capacity() {
    return buf.length;
  }

  /** The backing array; valid up to {@link #size()} until the next write. */
  public byte[] array() {
    return buf;
  }

  public String toUtf8String() {
    return new String(buf, 0, size, StandardCharsets.UTF_8);
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }

  /** The last byte written, or -1 if nothing was. */
  int lastByte() {
    return size == 0 ? -1 : buf[size - 1];
  }

  void ensure(int extra) {
    int needed = size + extra;
    if (needed > buf.length) {
      if (needed < 0) {
        throw new DocumentRenderException("rendered JSON would exceed 2 GiB");
      }
      buf = Arrays.copyOf(buf, Math.max(needed, (int) Math.min(Integer.MAX_VALUE - 8, buf.length * 2L)));
    }
  }

  void writeByte(int b) {
    ensure(1);
    buf[size++] = (byte) b;
  }

  void writeBytes(byte[] bytes) {
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buf, size, bytes.length);
    size += bytes.length;
  }

  void writeLong(long v) {
    ensure(20);
    if (v == Long.MIN_VALUE) {
      writeBytes("-9223372036854775808".getBytes(StandardCharsets.US_ASCII));
      return;
    }
    if (v < 0) {
      buf[size++] = '-';
      v = -v;
    }
    int digits = 1;
    for (long p = 10; digits < 19 && v >= p; p *= 10) {
      digits++;
    }
    int end = size + digits;
    for (int i = end - 1; i >= size; i--) {
      buf[i] = (byte) ('0' + (v % 10));
      v /= 10;
    }
    size = end;
  }

  /** Writes {@code value} as exactly {@code width} zero-padded digits (value >= 0). */
  void writePadded(long value, int width) {
    ensure(width);
    for (int i = size + width - 1; i >= size; i--) {
      buf[i] = (byte) ('0' + (value % 10));
      value /= 10;
    }
    size += width;
  }

  void writeHex(byte[] src, int off, int len) {
    ensure(len * 2);
    for (int i = off; i < off + len; i++) {
      buf[size++] = HEX[(src[i] >> 4) & 0xF];
      buf[size++] = HEX[src[i] & 0xF];
    }
  }

  void writeHexByte(int b) {
    ensure(2);
    buf[size++] = HEX[(b >> 4) & 0xF];
    buf[size++] = HEX[b & 0xF];
  }

  /** Standard base64 with padding (RFC 4648 section 4), as Extended JSON requires. */
  void writeBase64(byte[] src, int off, int len) {
    ensure((len + 2) / 3 * 4);
    byte[] out = buf;
    int p = size;
    int i = off;
    int end = off + len;
    for (; i + 2 < end; i += 3) {
      int bits = (src[i] & 0xFF) << 16 | (src[i + 1] & 0xFF) << 8 | (src[i + 2] & 0xFF);
      out[p++] = BASE64[bits >>> 18];
      out[p++] = BASE64[(bits >>> 12) & 0x3F];
      out[p++] = BASE64[(bits >>> 6) & 0x3F];
      out[p++] = BASE64[bits & 0x3F];
    }
    int rest = end - i;
    if (rest > 0) {
      int bits = (src[i] & 0xFF) << 16 | (rest == 2 ? (src[i + 1] & 0xFF) << 8 : 0);
      out[p++] = BASE64[bits >>> 18];
      out[p++] = BASE64[(bits >>> 12) & 0x3F];
      out[p++] = rest == 2 ? BASE64[(bits >>> 6) & 0x3F] : (byte) '=';
      out[p++] = '=';
    }
    size = p;
  }

  /** Writes a JSON string (quotes included) whose content is UTF-8 bytes from BSON. */
  void writeQuoted(byte[] src, int from, int to) {
    writeByte('"');
    writeStringContent(src, from, to);
    writeByte('"');
  }

  /**
   * Writes UTF-8 bytes from BSON as the content of a JSON string: escapes what JSON requires,
   * replaces each ill-formed UTF-8 subpart with U+FFFD and each NUL with U+2400. Never fails.
   */
  void writeStringContent(byte[] src, int from, int to) {
    int i = from;
    while (i < to) {
      // Worst case per input byte is a 6-byte \\u00XX escape. Reserving that per chunk (not for
      // the whole string, which may be megabytes) keeps the hot loop free of capacity checks;
      // the last sequence of a chunk may run up to 3 bytes past its end.
      int chunkEnd = Math.min(to, i + CHUNK);
      ensure((chunkEnd - i + 3) * 6);
      i = writeChunk(src, i, chunkEnd, to);
    }
  }

  private int writeChunk(byte[] src, int i, int chunkEnd, int to) {
    byte[] out = buf;
    int p = size;
    while (i < chunkEnd) {
      byte b = src[i];
      if (b >= 0) {
        byte cls = ASCII_CLASS[b];
        if (cls == 0) {
          out[p++] = b;
        } else if (cls == 2) {
          out[p++] = NUL_SUBSTITUTE[0];
          out[p++] = NUL_SUBSTITUTE[1];
          out[p++] = NUL_SUBSTITUTE[2];
        } else {
          p = writeEscape(out, p, b);
        }
        i++;
        continue;
      }
      int n = Utf8Validation.sequenceLength(src, i, to);
      if (n > 0) {
        for (int k = 0; k < n; k++) {
          out[p++] = src[i + k];
        }
        i += n;
      } else {
        out[p++] = REPLACEMENT[0];
        out[p++] = REPLACEMENT[1];
        out[p++] = REPLACEMENT[2];
        i -= n;
      }
    }
    size = p;
    return i;
  }

  private static int writeEscape(byte[] out, int p, byte c) {
    out[p++] = '\\';
    switch (c) {
      case '"' -> out[p++] = '"';
      case '\\' -> out[p++] = '\\';
      case '\n' -> out[p++] = 'n';
      case '\r' -> out[p++] = 'r';
      case '\t' -> out[p++] = 't';
      case '\b' -> out[p++] = 'b';
      case '\f' -> out[p++] = 'f';
      default -> {
        out[p++] = 'u';
        out[p++] = '0';
        out[p++] = '0';
        out[p++] = HEX[(c >> 4) & 0xF];
        out[p++] = HEX[c & 0xF];
      }
    }
    return p;
  }
}
