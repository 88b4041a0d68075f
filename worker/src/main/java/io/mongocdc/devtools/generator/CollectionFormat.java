package io.mongocdc.devtools.generator;

import io.mongocdc.decode.Namespace;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.UUID;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * How one generated collection's documents, keys and namespace are written: its document shape
 * (by its place in the profile: orders, users, products, then round robin), its kind of
 * {@code _id} (a string with a prefix, or an int32), and the parts of its events that never
 * change, encoded once.
 */
final class CollectionFormat {

  private static final HexFormat HEX = HexFormat.of().withUpperCase();
  private static final byte[] DB = BsonBytes.name("db");
  private static final byte[] COLL = BsonBytes.name("coll");
  private static final byte[] EMPTY = new byte[0];
  // KeyString type bytes (string 3C, int 2B) and the field name "_id" with its terminator.
  private static final byte[] STRING_KEY_HEX = ascii("3C5F696400");
  private static final byte[] INT32_KEY_HEX = ascii("2B5F696400");
  private static final byte[] STRING_END_HEX = ascii("00");

  private final int shape;
  private final byte[] keyPrefix;
  private final String keyPrefixText;
  private final byte[] keyPrefixHex;
  private final byte[] namespaceDocument;
  private final byte[] uuidHex;
  private final long salt;

  CollectionFormat(Namespace ns, int position) {
    this(ns, position, 0);
  }

  /** @param seed with the position, picks which products are large */
  CollectionFormat(Namespace ns, int position, long seed) {
    this.shape = position % 3;
    this.salt = seed * 0x9E3779B97F4A7C15L + position;
    // Orders are keyed per collection, users by a shared prefix, products by their number.
    this.keyPrefixText = switch (shape) {
      case 0 -> ns.collection() + "-";
      case 1 -> "user-";
      default -> null;
    };
    this.keyPrefix = keyPrefixText == null ? null : BsonBytes.utf8(keyPrefixText);
    this.keyPrefixHex = keyPrefix == null ? null : ascii(HEX.formatHex(keyPrefix));
    BsonBytes out = new BsonBytes();
    int start = out.startDocument();
    out.string(DB, BsonBytes.utf8(ns.database()));
    out.string(COLL, BsonBytes.utf8(ns.collection()));
    out.endDocument(start);
    this.namespaceDocument = out.toByteArray();
    // The UUID the scripted events give a collection, so tokens look alike.
    UUID uuid = UUID.nameUUIDFromBytes(ns.fullName().getBytes(StandardCharsets.UTF_8));
    this.uuidHex = ascii(HEX.toHexDigits(uuid.getMostSignificantBits()) + HEX.toHexDigits(uuid.getLeastSignificantBits()));
  }

  /**
   * Writes the document of this collection's shape with key {@code id} and content {@code
   * number}; returns where it starts. The same arguments always write the same bytes, so a
   * document is made again from its key and content number rather than kept: one product in
   * fifty, picked by a hash of the seed and the number, is a large one.
   */
  int writeDocument(BsonBytes out, int id, int number) {
    return switch (shape) {
      case 0 -> SampleDocumentBytes.medium(out, this, id, number);
      case 1 -> SampleDocumentBytes.small(out, this, id, number);
      default -> Long.remainderUnsigned(mix(salt + number), 50) == 0
          ? SampleDocumentBytes.large(out, this, id, number)
          : SampleDocumentBytes.smallProduct(out, this, id, number);
    };
  }

  /** Whether keys are text (a prefix, then the number in decimal) rather than int32 numbers. */
  boolean textKeys() {
    return keyPrefix != null;
  }

  /**
   * The key number of a generated {@code _id} ({@code 7} for {@code user-7} or {@code 7}, {@code
   * 7L}, {@code 7.0}), or -1 if the value is no key this collection can have.
   */
  long keyNumber(BsonValue id) {
    if (id == null) {
      return -1;
    }
    long number;
    if (keyPrefix != null) {
      if (!id.isString() || !id.asString().getValue().startsWith(keyPrefixText)) {
        return -1;
      }
      String digits = id.asString().getValue().substring(keyPrefixText.length());
      if (digits.isEmpty() || digits.length() > 10 || digits.length() > 1 && digits.charAt(0) == '0'
          || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
        return -1;
      }
      number = Long.parseLong(digits);
    } else {
      if (!id.isNumber() && !id.isDecimal128()) {
        return -1;
      }
      double value = id.isDecimal128() ? id.asDecimal128().doubleValue() : id.asNumber().doubleValue();
      if (!(value >= 0 && value <= Integer.MAX_VALUE) || value != Math.rint(value)) {
        return -1;
      }
      number = (long) value;
    }
    // Exact: a decimal or double near a whole number is not that number's key.
    return number <= Integer.MAX_VALUE && io.mongocdc.snapshot.BsonIdOrder.INSTANCE.compare(key((int) number), id) == 0
        ? number : -1;
  }

  /** SplitMix64's finaliser: neighbouring numbers give unrelated bits. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Writes the field {@code name: <key id>}. */
  void writeKey(BsonBytes out, byte[] name, int id) {
    if (keyPrefix == null) {
      out.int32(name, id);
    } else {
      out.string(name, keyPrefix, id, EMPTY);
    }
  }

  /** The key {@code id} as a value, for the model's snapshot. */
  BsonValue key(int id) {
    return keyPrefix == null ? new BsonInt32(id) : new BsonString(keyPrefixText + id);
  }

  /**
   * Writes the hex of the resume token's event identifier {@code {_id: <key>}} as a KeyString
   * field, as {@code ResumeTokens.event} does: type, name {@code _id}, then the value.
   */
  void writeTokenKey(BsonBytes out, int id) {
    if (keyPrefix == null) {
      out.raw(INT32_KEY_HEX, 0, INT32_KEY_HEX.length);
      out.hex(id, 8);
    } else {
      out.raw(STRING_KEY_HEX, 0, STRING_KEY_HEX.length);
      out.raw(keyPrefixHex, 0, keyPrefixHex.length);
      out.hexOfDecimal(id);
      out.raw(STRING_END_HEX, 0, STRING_END_HEX.length);
    }
  }

  void writeNamespace(BsonBytes out, byte[] name) {
    out.header(0x03, name);
    out.raw(namespaceDocument, 0, namespaceDocument.length);
  }

  byte[] uuidHex() {
    return uuidHex;
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
