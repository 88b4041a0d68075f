package io.mongocdc.decode;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes BSON bytes by hand, so tests can build what the driver's writer refuses to: invalid
 * UTF-8, NUL inside strings, unsorted regex options, deprecated types, corrupt lengths.
 */
final class RawBsonWriter {

  private byte[] buf = new byte[256];
  private int size;

  byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }

  int size() {
    return size;
  }

  /** Starts a document or array; returns the mark to pass to {@link #endDocument}. */
  int startDocument() {
    int mark = size;
    int32(0);
    return mark;
  }

  void endDocument(int mark) {
    byte1(0);
    patchInt(mark, size - mark);
  }

  /** Element header: type byte and name. */
  RawBsonWriter name(int type, byte[] name) {
    byte1(type);
    bytes(name);
    byte1(0);
    return this;
  }

  RawBsonWriter name(int type, String name) {
    return name(type, name.getBytes(StandardCharsets.UTF_8));
  }

  void byte1(int b) {
    ensure(1);
    buf[size++] = (byte) b;
  }

  void bytes(byte[] bytes) {
    ensure(bytes.length);
    System.arraycopy(bytes, 0, buf, size, bytes.length);
    size += bytes.length;
  }

  void int32(int v) {
    ensure(4);
    patchInt(size, v);
    size += 4;
  }

  void int64(long v) {
    int32((int) v);
    int32((int) (v >>> 32));
  }

  /** A length-prefixed BSON string with these exact content bytes. */
  void string(byte[] content) {
    int32(content.length + 1);
    bytes(content);
    byte1(0);
  }

  void cstring(byte[] content) {
    bytes(content);
    byte1(0);
  }

  void patchInt(int at, int v) {
    buf[at] = (byte) v;
    buf[at + 1] = (byte) (v >>> 8);
    buf[at + 2] = (byte) (v >>> 16);
    buf[at + 3] = (byte) (v >>> 24);
  }

  private void ensure(int extra) {
    if (size + extra > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(size + extra, buf.length * 2));
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
