package io.mongocdc.devtools.generator;

import java.util.Arrays;

/**
 * The two fields the generator's updates set, {@code version} (int32) and {@code updatedAt}
 * (date), in a document's bytes. Appending the missing ones (in that order) and then patching
 * both leaves the bytes {@code BsonDocument.putAll} of the two fields would, so an update patches
 * the model's bytes instead of building the document again.
 */
final class UpdatedDocument {

  private static final byte[] VERSION = BsonBytes.name("version");
  private static final byte[] UPDATED_AT = BsonBytes.name("updatedAt");
  private static final int INT32 = 0x10;
  private static final int DATE_TIME = 0x09;

  private UpdatedDocument() {}

  /**
   * Where the values of the document's {@code version} and {@code updatedAt} start, packed as
   * {@code versionAt << 32 | updatedAtAt}; a missing field's part is 0 (a value never starts
   * there).
   */
  static long fieldsAt(byte[] document) {
    int length = BsonBytes.int32At(document, 0);
    int versionAt = 0;
    int updatedAtAt = 0;
    int at = 4;
    while (at < length - 1) {
      int type = document[at];
      int valueAt = at + 1;
      while (document[valueAt] != 0) {
        valueAt++;
      }
      valueAt++;
      if (isName(document, at + 1, valueAt, VERSION)) {
        versionAt = expect(type, INT32, valueAt);
      } else if (isName(document, at + 1, valueAt, UPDATED_AT)) {
        updatedAtAt = expect(type, DATE_TIME, valueAt);
      }
      at = valueAt + valueSize(type, document, valueAt);
    }
    return (long) versionAt << 32 | updatedAtAt;
  }

  static int versionAt(long fieldsAt) {
    return (int) (fieldsAt >>> 32);
  }

  static int updatedAtAt(long fieldsAt) {
    return (int) fieldsAt;
  }

  /**
   * Appends whichever of the two fields the document at the start of {@code document} lacks, as
   * {@link #fieldsAt} found them; returns the buffer holding the result: {@code document} itself
   * unless it had no room.
   */
  static byte[] withFields(byte[] document, long fieldsAt) {
    int length = BsonBytes.int32At(document, 0);
    boolean hasVersion = versionAt(fieldsAt) > 0;
    boolean hasUpdatedAt = updatedAtAt(fieldsAt) > 0;
    int grown = length + (hasVersion ? 0 : 1 + VERSION.length + 4) + (hasUpdatedAt ? 0 : 1 + UPDATED_AT.length + 8);
    byte[] target = grown <= document.length ? document : Arrays.copyOf(document, grown);
    int end = length - 1;
    if (!hasVersion) {
      end = header(target, end, INT32, VERSION) + 4;
    }
    if (!hasUpdatedAt) {
      end = header(target, end, DATE_TIME, UPDATED_AT) + 8;
    }
    target[end] = 0;
    BsonBytes.putInt32(target, 0, grown);
    return target;
  }

  private static boolean isName(byte[] document, int from, int to, byte[] name) {
    // The first byte rules out almost every field.
    return document[from] == name[0] && to - from == name.length
        && Arrays.equals(document, from, to, name, 0, name.length);
  }

  private static int expect(int type, int wanted, int valueAt) {
    if (type != wanted) {
      throw new IllegalStateException("generated document has a field of BSON type " + type + " where " + wanted
          + " was expected");
    }
    return valueAt;
  }

  private static int header(byte[] target, int at, int type, byte[] name) {
    target[at] = (byte) type;
    System.arraycopy(name, 0, target, at + 1, name.length);
    return at + 1 + name.length;
  }

  /** The size of a top-level value of the types generated documents hold. */
  private static int valueSize(int type, byte[] bytes, int at) {
    return switch (type) {
      case 0x01, 0x09, 0x11, 0x12 -> 8;
      case 0x02 -> 4 + BsonBytes.int32At(bytes, at);
      case 0x03, 0x04 -> BsonBytes.int32At(bytes, at);
      case 0x07 -> 12;
      case 0x08 -> 1;
      case 0x0A -> 0;
      case 0x10 -> 4;
      case 0x13 -> 16;
      default -> throw new IllegalStateException("generated document holds BSON type " + type);
    };
  }
}
