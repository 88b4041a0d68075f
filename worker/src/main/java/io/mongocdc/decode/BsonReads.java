package io.mongocdc.decode;

/**
 * Reads the primitive parts of raw BSON bytes: little-endian int32 and int64 values and the
 * 0x00 that ends a C string. Shared by every walker of raw BSON (the JSON transcoder, the
 * {@code _id} key writer, the change-event field reader) so they agree on the byte layout.
 *
 * <p>No bounds checks beyond the array's own: callers check first that the bytes they read lie
 * inside the document, and report it in their own terms when they do not. The methods are small
 * and static so the JIT inlines them into the hot decode loops.
 */
final class BsonReads {

  private BsonReads() {}

  /** The little-endian int32 at {@code p}. */
  static int readInt(byte[] b, int p) {
    return (b[p] & 0xFF) | (b[p + 1] & 0xFF) << 8 | (b[p + 2] & 0xFF) << 16 | b[p + 3] << 24;
  }

  /** The little-endian int64 at {@code p}. */
  static long readLong(byte[] b, int p) {
    return (readInt(b, p) & 0xFFFF_FFFFL) | (long) readInt(b, p + 4) << 32;
  }

  /** The offset of the first 0x00 byte in {@code [from, to)}, or -1 if there is none. */
  static int indexOfZero(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] == 0) {
        return i;
      }
    }
    return -1;
  }
}
