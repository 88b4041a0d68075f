package io.mongocdc.privacy;

import io.mongocdc.workflows.model.FieldRules;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.bson.BsonArray;
import org.bson.ByteBuf;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt64;
import org.bson.BsonJavaScript;
import org.bson.BsonString;
import org.bson.BsonSymbol;
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
  private static final byte DOUBLE = 0x01;
  private static final byte STRING = 0x02;
  private static final byte DOCUMENT = 0x03;
  private static final byte ARRAY = 0x04;
  private static final byte CODE = 0x0D;
  private static final byte SYMBOL = 0x0E;
  private static final byte INT32 = 0x10;
  private static final byte INT64 = 0x12;
  private static final byte[] TERMINATOR = {0};
  /** The bits of the double -0.0. */
  private static final long NEGATIVE_ZERO = Double.doubleToRawLongBits(-0.0);
  /** U+2400 SYMBOL FOR NULL, which a row's JSON holds for NUL. */
  private static final char NUL_SYMBOL = '\u2400';
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
    return of(rules, key, List.of());
  }

  /**
   * The redactor of {@code rules} for a rewrite of rows that hold hashes already at {@code
   * hashedAlready} (the hash rules they were written under): a value there is left as it is, even
   * where an added rule hashes it too, so no value is hashed twice. One an added rule excludes goes.
   *
   * @param key the hash key; null only when {@code rules} hash nothing
   */
  public static FieldRedactor of(FieldRules rules, HashKey key, List<String> hashedAlready) {
    if (!rules.hash().isEmpty()) {
      Objects.requireNonNull(key, "a hash rule needs a hash key");
    }
    return new FieldRedactor(RuleNode.compile(rules, hashedAlready), key);
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
      Reach reach = reach(root, b, e.start + 1, e.nameEnd);
      if (reach.action == RuleNode.Action.HASH) {
        // A field inside a hashed value is left out: the post-image holds the hash of the whole.
        if (reach.whole) {
          hashed(b, e, out);
        }
      } else if (reach.action == RuleNode.Action.KEEP || reach.action == null && reach.nodes.length == 0) {
        out.bytes(b, p, e.valueEnd - p);
      } else if (reach.action == null) {
        value(b, e, reach.nodes, depth, out);
      }
      p = e.valueEnd;
    }
    out.end(size);
  }

  /**
   * Where a dotted field name leads from {@code nodes}: an update's {@code updatedFields} names a
   * path so ({@code customer.email}, {@code items.3.email}: a numeric segment may index an array),
   * and a document may hold a field literally named {@code customer.email} (MongoDB 5.0+ allows a
   * dot in a name). Both are matched segment by segment, so a rule acts alike on the value whichever
   * way it is held, in documents and in update descriptions: the two cannot be told apart in {@code
   * updatedFields}.
   */
  private static Reach reach(RuleNode[] nodes, byte[] b, int from, int nameEnd) {
    RuleNode[] current = nodes;
    while (true) {
      int to = from;
      while (to < nameEnd && b[to] != '.') {
        to++;
      }
      RuleNode[] named = RuleNode.match(current, b, from, to);
      RuleNode.Action action = named.length == 0 ? null : RuleNode.strongest(named);
      if (action != null) {
        return new Reach(action, to == nameEnd, named);
      }
      current = isIndex(b, from, to) ? RuleNode.concat(named, current) : named;
      if (current.length == 0 || to == nameEnd) {
        return new Reach(null, false, current);
      }
      from = to + 1;
    }
  }

  /**
   * Where a field's name leads: an action on its value ({@code whole}: on the value itself, not on
   * one it is a part of), or, with no action, the rule nodes below it (none: no rule reaches it).
   */
  private record Reach(RuleNode.Action action, boolean whole, RuleNode[] nodes) {}

  /** Whether the name {@code b[from, to)} holds a dot. */
  private static boolean dotted(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] == '.') {
        return true;
      }
    }
    return false;
  }

  private void document(byte[] b, int start, RuleNode[] nodes, boolean top, int depth, Output out) {
    int end = checkedEnd(b, start);
    int size = out.reserveInt();
    Element e = out.element(depth);
    // Fields no rule reaches are copied in runs, not one by one.
    int run = start + 4;
    for (int p = run; p < end; ) {
      e.read(b, p, end);
      RuleNode[] matched;
      RuleNode.Action action;
      if (top && e.isId(b)) {
        matched = RuleNode.NONE;
        action = null;
      } else if (dotted(b, e.start + 1, e.nameEnd)) {
        // A name with a dot is matched as the path it spells, as updatedFields names are; a field
        // inside a hashed path is hashed, a field inside an excluded one goes.
        Reach reach = reach(nodes, b, e.start + 1, e.nameEnd);
        matched = reach.nodes;
        action = reach.action;
      } else {
        matched = RuleNode.match(nodes, b, e.start + 1, e.nameEnd);
        action = matched.length == 0 ? null : RuleNode.strongest(matched);
      }
      // A field the rules only lead into that holds no document or array is kept as it is, in the
      // run; so is one whose value holds hashes already (a rewrite's KEEP).
      if (action != null && action != RuleNode.Action.KEEP
          || action == null && matched.length > 0 && (e.type == DOCUMENT || e.type == ARRAY)) {
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
    if (type == DOUBLE && Element.readLong(b, valueStart) == NEGATIVE_ZERO) {
      // jsonb has no -0: a row's JSON gives 0.0 back, and MongoDB holds the two equal.
      byte[] single = single(DOUBLE, new byte[8], 0, 8);
      return key.mac(single, 0, single.length);
    }
    if (type == STRING || type == CODE || type == SYMBOL) {
      byte[] text = canonicalText(b, valueStart + 4, valueEnd - 1);
      if (text != null) {
        ByteBuffer value = ByteBuffer.allocate(4 + text.length + 1).order(ByteOrder.LITTLE_ENDIAN)
            .putInt(text.length + 1).put(text).put((byte) 0);
        byte[] single = single(type, value.array(), 0, value.capacity());
        return key.mac(single, 0, single.length);
      }
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

  /**
   * Text as a row's JSON gives it back, as UTF-8; null when that is {@code b[from, to)} as it is
   * (the common case, found in one scan). The JSON holds ill-formed UTF-8 as U+FFFD, as the JDK
   * decodes it, and NUL as U+2400, which jsonb can hold (docs/json-rendering.md): the stream hashes
   * the text so too, so that a rewrite, which reads the rows' JSON, hashes it alike.
   */
  static byte[] canonicalText(byte[] b, int from, int to) {
    boolean plain = true;
    for (int i = from; i < to && plain; i++) {
      plain = b[i] > 0;
    }
    if (plain) {
      return null;
    }
    byte[] text = canonicalText(new String(b, from, to - from, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
    return Arrays.equals(text, 0, text.length, b, from, to) ? null : text;
  }

  private static String canonicalText(String text) {
    return text.replace('\0', NUL_SYMBOL);
  }

  private static BsonValue canonical(BsonValue value) {
    if (value.isInt32()) {
      return new BsonInt64(value.asInt32().getValue());
    }
    if (value.isDouble() && value.asDouble().getValue() == 0) {
      return new BsonDouble(0.0); // -0.0 too: see hashOf
    }
    if (value.isString()) {
      return new BsonString(canonicalText(value.asString().getValue()));
    }
    if (value.isSymbol()) {
      return new BsonSymbol(canonicalText(value.asSymbol().getSymbol()));
    }
    if (value.isJavaScript()) {
      return new BsonJavaScript(canonicalText(value.asJavaScript().getCode()));
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
