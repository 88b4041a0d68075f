package io.mongocdc.privacy;

import io.mongocdc.workflows.model.FieldRuleSettings;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
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

  /** An event whose {@code ns.coll} cannot be read (see {@link #indexOf}). */
  private static final int UNREADABLE = -2;
  /** An event of a collection without rules. */
  private static final int WITHOUT_RULES = -1;

  private final Map<String, FieldRedactor> byCollection;
  /** The same, as two arrays: collection names as UTF-8, matched against an event's bytes without decoding them. */
  private final byte[][] collectionNames;
  private final FieldRedactor[] redactors;

  private MirrorRedaction(Map<String, FieldRedactor> byCollection) {
    this.byCollection = byCollection;
    this.collectionNames = new byte[byCollection.size()][];
    this.redactors = new FieldRedactor[byCollection.size()];
    int i = 0;
    for (Map.Entry<String, FieldRedactor> each : byCollection.entrySet()) {
      collectionNames[i] = utf8(each.getKey());
      redactors[i++] = each.getValue();
    }
  }

  /**
   * The rules of {@code rules}.
   *
   * @param key the worker's hash key; null when it has none
   * @throws MissingHashKeyException if a rule hashes and {@code key} is null
   */
  public static MirrorRedaction of(FieldRuleSettings rules, HashKey key) {
    return of(rules, key, Map.of());
  }

  /**
   * The rules of {@code rules}, for a rewrite of rows that hold hashes already, per collection, at
   * the paths {@code hashedAlready} names: those values stay as they are (see {@link
   * FieldRedactor#of(io.mongocdc.workflows.model.FieldRules, HashKey, List)}).
   *
   * @param key the worker's hash key; null when it has none
   * @throws MissingHashKeyException if a rule hashes and {@code key} is null
   */
  public static MirrorRedaction of(FieldRuleSettings rules, HashKey key, Map<String, List<String>> hashedAlready) {
    if (rules.isEmpty()) {
      return NONE;
    }
    if (rules.hashes() && key == null) {
      throw new MissingHashKeyException();
    }
    Map<String, FieldRedactor> byCollection = new HashMap<>();
    rules.collections().forEach((collection, each) -> byCollection.put(collection,
        FieldRedactor.of(each, key, hashedAlready.getOrDefault(collection, List.of()))));
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
    int index = indexOf(b, start);
    if (index == WITHOUT_RULES) {
      return event;
    }
    FieldRedactor redactor = index == UNREADABLE ? null : redactors[index];
    Output out = new Output(buffer.remaining());
    int end = start + Element.readInt(b, start) - 1;
    if (end < start + 4 || end >= b.length || b[end] != 0) {
      throw new IllegalArgumentException("malformed BSON: the change event has a bad size");
    }
    int size = out.reserveInt();
    Element e = out.element(0);
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
          redactor.updateDescription(b, e.valueStart, 1, out);
        } else {
          redactor.document(b, e.valueStart, 1, out);
        }
      }
      p = e.valueEnd;
    }
    out.end(size);
    return out.toDocument();
  }

  /**
   * Which collection with rules the event at {@code b[start]} is of, by its {@code ns.coll}: the
   * index of its redactor, {@link #WITHOUT_RULES}, or {@link #UNREADABLE} when the event has no {@code
   * ns.coll} string or is malformed.
   */
  private int indexOf(byte[] b, int start) {
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
              int from = field.valueStart + 4;
              int to = from + Element.readInt(b, field.valueStart) - 1;
              if (to < from || to > nsEnd) {
                return UNREADABLE;
              }
              for (int i = 0; i < collectionNames.length; i++) {
                if (Arrays.equals(collectionNames[i], 0, collectionNames[i].length, b, from, to)) {
                  return i;
                }
              }
              return WITHOUT_RULES;
            }
            q = field.valueEnd;
          }
          return UNREADABLE;
        }
        p = e.valueEnd;
      }
      return UNREADABLE;
    } catch (RuntimeException e) {
      return UNREADABLE;
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
