package io.mongocdc.privacy;

import io.mongocdc.workflows.model.FieldRuleSettings;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.bson.ByteBuf;
import org.bson.RawBsonDocument;

/**
 * A mirror's field rules, ready to apply: per collection, its {@link FieldRedactor}. Applied once,
 * where documents enter the worker (the decode pool, the snapshot copy, verify's reads), so every
 * table, history row, quarantined event, comparison and log line after that sees only what the
 * rules leave.
 */
public final class MirrorRedaction {

  /** No rules: every document as it is. */
  public static final MirrorRedaction NONE = new MirrorRedaction(Map.of());

  private static final byte[] FULL_DOCUMENT = utf8("fullDocument");
  private static final byte[] FULL_DOCUMENT_BEFORE_CHANGE = utf8("fullDocumentBeforeChange");
  private static final byte[] DOCUMENT_KEY = utf8("documentKey");
  private static final byte[] UPDATE_DESCRIPTION = utf8("updateDescription");
  private static final byte[] NS = utf8("ns");
  private static final byte[] COLL = utf8("coll");

  private final Map<String, FieldRedactor> byCollection;

  private MirrorRedaction(Map<String, FieldRedactor> byCollection) {
    this.byCollection = byCollection;
  }

  /**
   * The rules of {@code rules}.
   *
   * @param key the worker's hash key; null when it has none
   * @throws MissingHashKeyException if a rule hashes and {@code key} is null
   */
  public static MirrorRedaction of(FieldRuleSettings rules, HashKey key) {
    if (rules.isEmpty()) {
      return NONE;
    }
    if (rules.hashes() && key == null) {
      throw new MissingHashKeyException();
    }
    Map<String, FieldRedactor> byCollection = new HashMap<>();
    rules.collections().forEach((collection, each) -> byCollection.put(collection, FieldRedactor.of(each, key)));
    return new MirrorRedaction(Map.copyOf(byCollection));
  }

  /** The redactor of {@code collection}'s documents; null when its documents have no rules. */
  public FieldRedactor of(String collection) {
    return byCollection.get(collection);
  }

  /** A document of {@code collection} with its rules applied (itself when it has none). */
  public RawBsonDocument document(String collection, RawBsonDocument document) {
    FieldRedactor redactor = byCollection.get(collection);
    return redactor == null ? document : redactor.document(document);
  }

  /**
   * A change event with its collection's rules applied to its documents: {@code fullDocument},
   * {@code fullDocumentBeforeChange}, {@code documentKey} (its {@code _id} kept) and {@code
   * updateDescription}. An event whose collection cannot be read, in a mirror with rules, keeps
   * none of those: it cannot be told which rules are its own.
   *
   * @throws IllegalArgumentException if the event's BSON is malformed
   */
  public RawBsonDocument changeEvent(RawBsonDocument event) {
    if (byCollection.isEmpty()) {
      return event;
    }
    ByteBuf buffer = event.getByteBuffer();
    byte[] b = FieldRedactor.arrayOf(buffer);
    int start = FieldRedactor.offsetOf(buffer);
    String collection = collectionOf(b, start);
    FieldRedactor redactor = collection == null ? null : byCollection.get(collection);
    if (collection != null && redactor == null) {
      return event;
    }
    Output out = new Output(buffer.remaining());
    int end = start + Element.readInt(b, start) - 1;
    if (end < start + 4 || end >= b.length || b[end] != 0) {
      throw new IllegalArgumentException("malformed BSON: the change event has a bad size");
    }
    int size = out.reserveInt();
    Element e = new Element();
    for (int p = start + 4; p < end; ) {
      e.read(b, p, end);
      boolean document = e.type == 0x03;
      boolean carriesDocument = e.nameEquals(b, FULL_DOCUMENT) || e.nameEquals(b, FULL_DOCUMENT_BEFORE_CHANGE)
          || e.nameEquals(b, DOCUMENT_KEY) || e.nameEquals(b, UPDATE_DESCRIPTION);
      if (!carriesDocument || !document) {
        if (!carriesDocument || redactor != null) {
          out.bytes(b, p, e.valueEnd - p);
        }
      } else if (redactor != null) {
        out.bytes(b, p, e.valueStart - p);
        if (e.nameEquals(b, UPDATE_DESCRIPTION)) {
          redactor.updateDescription(b, e.valueStart, out);
        } else {
          redactor.document(b, e.valueStart, out);
        }
      }
      p = e.valueEnd;
    }
    out.end(size);
    return out.toDocument();
  }

  /** The {@code ns.coll} string of the event at {@code b[start]}; null when it has none or is malformed. */
  private static String collectionOf(byte[] b, int start) {
    try {
      int end = start + Element.readInt(b, start) - 1;
      Element e = new Element();
      for (int p = start + 4; p < end; ) {
        e.read(b, p, end);
        if (e.type == 0x03 && e.nameEquals(b, NS)) {
          int nsEnd = e.valueEnd - 1;
          Element field = new Element();
          for (int q = e.valueStart + 4; q < nsEnd; ) {
            field.read(b, q, nsEnd);
            if (field.type == 0x02 && field.nameEquals(b, COLL)) {
              // A string value: its length (with the 0x00), then its UTF-8.
              return new String(b, field.valueStart + 4, Element.readInt(b, field.valueStart) - 1,
                  java.nio.charset.StandardCharsets.UTF_8);
            }
            q = field.valueEnd;
          }
          return null;
        }
        p = e.valueEnd;
      }
      return null;
    } catch (RuntimeException e) {
      return null;
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
