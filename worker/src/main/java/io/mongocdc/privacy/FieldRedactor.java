package io.mongocdc.privacy;

import io.mongocdc.workflows.model.FieldRules;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.bson.BsonArray;
import org.bson.ByteBuf;
import org.bson.BsonDocument;
import org.bson.BsonInt64;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Applies one collection's field rules to raw BSON, byte by byte: fields no rule reaches are copied
 * as they are, an excluded field is left out, a hashed field's value becomes the string of its
 * keyed hash ({@link #hashOf}). The top-level {@code _id} is never touched.
 *
 * <p>A hash is the HMAC-SHA-256, under the worker's {@link HashKey}, of the BSON document {@code
 * {"v": value}} with the value made canonical first: int32 numbers widened to int64 and the fields of
 * sub-documents sorted by name, at every depth. So a value hashes alike whether it comes from the
 * stream or back from a row's JSON, where an int64 that fits int32 and a sub-document's field order
 * are not kept.
 *
 * <p>Safe for several threads at once: it holds no mutable state.
 */
public final class FieldRedactor {

  private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();
  private static final byte STRING = 0x02;
  private static final byte DOCUMENT = 0x03;
  private static final byte ARRAY = 0x04;
  private static final byte INT32 = 0x10;
  private static final byte INT64 = 0x12;
  private static final byte[] TERMINATOR = {0};
  private static final byte[] UPDATED_FIELDS = "updatedFields".getBytes(StandardCharsets.UTF_8);

  private final RuleNode[] root;
  private final HashKey key;

  private FieldRedactor(RuleNode root, HashKey key) {
    this.root = new RuleNode[] {root};
    this.key = key;
  }

  /**
   * The redactor of {@code rules}.
   *
   * @param key the hash key; null only when {@code rules} hash nothing
   */
  public static FieldRedactor of(FieldRules rules, HashKey key) {
    if (!rules.hash().isEmpty()) {
      Objects.requireNonNull(key, "a hash rule needs a hash key");
    }
    return new FieldRedactor(RuleNode.compile(rules), key);
  }

  /** The document with the rules applied. @throws IllegalArgumentException if its BSON is malformed */
  public RawBsonDocument document(RawBsonDocument document) {
    ByteBuf buffer = document.getByteBuffer();
    Output out = new Output(buffer.remaining());
    document(arrayOf(buffer), offsetOf(buffer), root, true, 0, out);
    return out.toDocument();
  }

  /** Writes the document at {@code b[start]}, {@code depth} levels down its event, with the rules applied to {@code out}. */
  void document(byte[] b, int start, int depth, Output out) {
    document(b, start, root, true, depth, out);
  }

  /**
   * An update's {@code updateDescription} with the rules applied to {@code updatedFields}, whose
   * names are dotted paths ({@code customer.email}, {@code items.3.email}: a numeric segment may
   * index an array): a field the rules exclude is left out, and so is one inside a hashed value (the
   * event's post-image holds the hash of the whole); a field at a hashed path is hashed.
   */
  public RawBsonDocument updateDescription(RawBsonDocument description) {
    ByteBuf buffer = description.getByteBuffer();
    Output out = new Output(buffer.remaining());
    updateDescription(arrayOf(buffer), offsetOf(buffer), 0, out);
    return out.toDocument();
  }

  /** Writes the update description at {@code b[start]}, {@code depth} levels down its event, with the rules applied to {@code out}. */
  void updateDescription(byte[] b, int start, int depth, Output out) {
    int end = checkedEnd(b, start);
    int size = out.reserveInt();
    Element e = out.element(depth);
    for (int p = start + 4; p < end; ) {
      e.read(b, p, end);
      if (e.type == DOCUMENT && e.nameEquals(b, UPDATED_FIELDS)) {
        out.bytes(b, p, e.valueStart - p);
        updatedFields(b, e.valueStart, depth + 1, out);
      } else {
        out.bytes(b, p, e.valueEnd - p);
      }
      p = e.valueEnd;
    }
    out.end(size);
  }

  private void updatedFields(byte[] b, int start, int depth, Output out) {
    int end = checkedEnd(b, start);
    int size = out.reserveInt();
    Element e = out.element(depth);
    for (int p = start + 4; p < end; ) {
      e.read(b, p, end);
      RuleNode[] current = root;
      boolean done = false;
      // The name's segments, read in place: from, to the next '.' or the name's end.
      for (int from = e.start + 1; from <= e.nameEnd && !done; ) {
        int to = from;
        while (to < e.nameEnd && b[to] != '.') {
          to++;
        }
        RuleNode[] named = RuleNode.match(current, b, from, to);
        RuleNode.Action action = named.length == 0 ? null : RuleNode.strongest(named);
        if (action != null) {
          if (to == e.nameEnd && action == RuleNode.Action.HASH) {
            hashed(b, e, out);
          }
          // Excluded, or part of a hashed value: left out.
          done = true;
        } else {
          current = isIndex(b, from, to) ? RuleNode.concat(named, current) : named;
          if (current.length == 0) {
            out.bytes(b, p, e.valueEnd - p);
            done = true;
          }
        }
        from = to + 1;
      }
      if (!done) {
        value(b, e, current, depth, out);
      }
      p = e.valueEnd;
    }
    out.end(size);
  }

  private void document(byte[] b, int start, RuleNode[] nodes, boolean top, int depth, Output out) {
    int end = checkedEnd(b, start);
    int size = out.reserveInt();
    Element e = out.element(depth);
    // Fields no rule reaches are copied in runs, not one by one.
    int run = start + 4;
    for (int p = run; p < end; ) {
      e.read(b, p, end);
      RuleNode[] matched = top && e.isId(b) ? RuleNode.NONE : RuleNode.match(nodes, b, e.start + 1, e.nameEnd);
      RuleNode.Action action = matched.length == 0 ? null : RuleNode.strongest(matched);
      // A field the rules only lead into that holds no document or array is kept as it is, in the run.
      if (action != null || matched.length > 0 && (e.type == DOCUMENT || e.type == ARRAY)) {
        out.bytes(b, run, p - run);
        if (action == RuleNode.Action.HASH) {
          hashed(b, e, out);
        } else if (action == null) {
          value(b, e, matched, depth, out);
        }
        run = e.valueEnd;
      }
      p = e.valueEnd;
    }
    out.bytes(b, run, end - run);
    out.end(size);
  }

  /** A field some rules lie below: a document or array goes through them, anything else is copied. */
  private void value(byte[] b, Element e, RuleNode[] nodes, int depth, Output out) {
    out.bytes(b, e.start, e.valueStart - e.start);
    if (e.type == DOCUMENT) {
      document(b, e.valueStart, nodes, false, depth + 1, out);
    } else if (e.type == ARRAY) {
      array(b, e.valueStart, nodes, depth + 1, out);
    } else {
      out.bytes(b, e.valueStart, e.valueEnd - e.valueStart);
    }
  }

  /**
   * An array the rules go through: each element that is a document or array gets the same rules;
   * the others are copied in runs.
   */
  private void array(byte[] b, int start, RuleNode[] nodes, int depth, Output out) {
    int end = checkedEnd(b, start);
    int size = out.reserveInt();
    Element e = out.element(depth);
    int run = start + 4;
    for (int p = run; p < end; ) {
      e.read(b, p, end);
      if (e.type == DOCUMENT || e.type == ARRAY) {
        out.bytes(b, run, p - run);
        value(b, e, nodes, depth, out);
        run = e.valueEnd;
      }
      p = e.valueEnd;
    }
    out.bytes(b, run, end - run);
    out.end(size);
  }

  private void hashed(byte[] b, Element e, Output out) {
    out.oneByte(STRING);
    out.bytes(b, e.start + 1, e.valueStart - e.start - 1);
    // An update's changed value is often in its post-image too: hashed once per event.
    byte[] hash = out.hashedBefore(b, e.type, e.valueStart, e.valueEnd);
    if (hash == null) {
      hash = hashOf(b, e.type, e.valueStart, e.valueEnd);
      out.rememberHash(b, e.type, e.valueStart, e.valueEnd, hash);
    }
    out.hex(hash);
  }

  /** The keyed hash of one value, given as its BSON type and bytes. */
  private byte[] hashOf(byte[] b, byte type, int valueStart, int valueEnd) {
    if (type == DOCUMENT || type == ARRAY) {
      byte[] single = canonicalSingle(b, type, valueStart, valueEnd);
      return key.mac(single, 0, single.length);
    }
    if (type == INT32) {
      byte[] single = single(INT64, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
          .putLong(Element.readInt(b, valueStart)).array(), 0, 8);
      return key.mac(single, 0, single.length);
    }
    // {"v": value} as its three parts, so the value's bytes are not copied.
    int length = valueEnd - valueStart;
    int size = 4 + 1 + 2 + length + 1;
    byte[] header = {(byte) size, (byte) (size >> 8), (byte) (size >> 16), (byte) (size >> 24), type, 'v', 0};
    return key.mac(header, b, valueStart, length, TERMINATOR);
  }

  /** {@code {"v": value}} as BSON, for a value whose bytes are canonical as they are. */
  private static byte[] single(byte type, byte[] value, int offset, int length) {
    int size = 4 + 1 + 2 + length + 1;
    ByteBuffer buffer = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    buffer.putInt(size).put(type).put((byte) 'v').put((byte) 0).put(value, offset, length).put((byte) 0);
    return buffer.array();
  }

  private static byte[] canonicalSingle(byte[] b, byte type, int valueStart, int valueEnd) {
    byte[] wrapped = single(type, b, valueStart, valueEnd - valueStart);
    BsonValue value = new RawBsonDocument(wrapped).get("v");
    RawBsonDocument canonical = new RawBsonDocument(new BsonDocument("v", canonical(value)), CODEC);
    return bytesOf(canonical);
  }

  private static BsonValue canonical(BsonValue value) {
    if (value.isInt32()) {
      return new BsonInt64(value.asInt32().getValue());
    }
    if (value.isDocument()) {
      Map<String, BsonValue> sorted = new TreeMap<>();
      value.asDocument().forEach((name, field) -> sorted.put(name, canonical(field)));
      BsonDocument document = new BsonDocument();
      sorted.forEach(document::append);
      return document;
    }
    if (value.isArray()) {
      BsonArray array = new BsonArray();
      value.asArray().forEach(element -> array.add(canonical(element)));
      return array;
    }
    return value;
  }

  /** Whether {@code b[from, to)} is a number, which in an update's dotted name may index an array. */
  private static boolean isIndex(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] < '0' || b[i] > '9') {
        return false;
      }
    }
    return to > from;
  }

  /** The array behind a document's bytes (a copy only when they have none); they start at {@link #offsetOf}. */
  static byte[] arrayOf(ByteBuf buffer) {
    ByteBuffer nio = buffer.asNIO();
    if (nio.hasArray()) {
      return nio.array();
    }
    byte[] bytes = new byte[nio.remaining()];
    nio.duplicate().get(bytes);
    return bytes;
  }

  static int offsetOf(ByteBuf buffer) {
    ByteBuffer nio = buffer.asNIO();
    return nio.hasArray() ? nio.arrayOffset() + nio.position() : 0;
  }

  static byte[] bytesOf(RawBsonDocument document) {
    ByteBuffer buffer = document.getByteBuffer().asNIO();
    if (buffer.hasArray() && buffer.arrayOffset() == 0 && buffer.position() == 0
        && buffer.remaining() == buffer.array().length) {
      return buffer.array();
    }
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }

  /** The offset of the 0x00 that ends the document at {@code start}, checked against the bytes. */
  private static int checkedEnd(byte[] b, int start) {
    if (start + 5 > b.length) {
      throw new IllegalArgumentException("malformed BSON: a document at byte " + start + " runs past the end");
    }
    int size = Element.readInt(b, start);
    if (size < 5 || start + size > b.length || b[start + size - 1] != 0) {
      throw new IllegalArgumentException("malformed BSON: the document at byte " + start + " has a bad size");
    }
    return start + size - 1;
  }
}
