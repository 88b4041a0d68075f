package io.mongocdc.devtools.generator;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.bson.RawBsonDocument;

/**
 * The generator's model of one collection's documents: what the destination must end up holding,
 * kept without holding the documents.
 *
 * <p>Key numbers are handed out from 0 up; every key below {@link #keyLimit()} has existed. A
 * document is written again whenever it is needed from its key, its content number and, after an
 * update, its {@code version} and {@code updatedAt} (see {@link CollectionFormat#writeDocument}).
 * A key no event touched holds content number = key, unchanged: nothing is stored for it, so
 * the initial documents and plain inserts cost nothing. Only keys an event updated, replaced,
 * deleted or inserted again are stored: the model grows with the events, never with the
 * collection. Deleted keys are inserted again (with new content) once every key of the key space
 * has been handed out.
 */
final class CollectionModel {

  // Room for a document to take the two update fields without a new buffer.
  private static final int SLACK = 64;

  private final CollectionFormat format;
  private final int keySpace;
  private final Map<Integer, Change> changes = new HashMap<>();
  // A stack of the deleted keys, for inserts once the key space is handed out.
  private int[] deleted = new int[16];
  private int deletedCount;
  private int keyLimit;
  private int replacements;
  private final BsonBytes scratch = new BsonBytes();
  private byte[] document = new byte[1024];

  /** What an event made of a key: the model's only stored state. */
  private static final class Change {
    int content;
    boolean live = true;
    boolean updated;
    int version;
    long updatedAt;

    Change(int content) {
      this.content = content;
    }
  }

  CollectionModel(CollectionFormat format, int keySpace) {
    this.format = format;
    this.keySpace = keySpace;
  }

  CollectionFormat format() {
    return format;
  }

  /** Live documents. */
  int size() {
    return keyLimit - deletedCount;
  }

  /** Keys below this have existed; none at or above it has. */
  int keyLimit() {
    return keyLimit;
  }

  /** Keys stored because events changed them: what the model holds, whatever the collection's size. */
  int storedKeys() {
    return changes.size();
  }

  /** Makes keys {@code 0 .. count-1} exist, unchanged: the documents before the first event. */
  void prefill(int count) {
    if (keyLimit > 0 || !changes.isEmpty()) {
      throw new IllegalStateException("only an empty collection can be prefilled");
    }
    keyLimit = Math.min(count, keySpace);
  }

  /** Whether an insert has a key to take: one never handed out, or a deleted one. */
  boolean canInsert() {
    return keyLimit < keySpace || deletedCount > 0;
  }

  /**
   * Takes a key for an insert and returns it; the caller writes its document with {@link
   * #content}. A key never handed out holds content = key; a deleted one gets new content.
   */
  int insert() {
    if (keyLimit < keySpace) {
      return keyLimit++;
    }
    int key = deleted[--deletedCount];
    Change change = changes.get(key);
    change.live = true;
    change.updated = false;
    change.content = nextContent();
    return key;
  }

  /** A random live key; there must be one. */
  int randomLiveKey(Random random) {
    int key = random.nextInt(keyLimit);
    // At most the deleted keys are passed over.
    while (!live(key)) {
      key = key + 1 == keyLimit ? 0 : key + 1;
    }
    return key;
  }

  boolean live(long key) {
    if (key < 0 || key >= keyLimit) {
      return false;
    }
    Change change = changes.get((int) key);
    return change == null || change.live;
  }

  /** The content number of a live key's document. */
  int content(int key) {
    Change change = changes.get(key);
    return change == null ? key : change.content;
  }

  /** Sets the {@code version} and {@code updatedAt} of a live key; returns its document's bytes, valid until the next call. */
  byte[] update(int key, int version, long updatedAt) {
    Change change = changes.computeIfAbsent(key, Change::new);
    change.updated = true;
    change.version = version;
    change.updatedAt = updatedAt;
    return write(key);
  }

  /** Gives a live key new content, its update fields gone; returns the new content number to write. */
  int replace(int key) {
    Change change = changes.computeIfAbsent(key, Change::new);
    change.content = nextContent();
    change.updated = false;
    return change.content;
  }

  void delete(int key) {
    changes.computeIfAbsent(key, Change::new).live = false;
    if (deletedCount == deleted.length) {
      deleted = Arrays.copyOf(deleted, deletedCount * 2);
    }
    deleted[deletedCount++] = key;
  }

  /** A copy of a key's document, or null if the key is not live. */
  RawBsonDocument document(long key) {
    if (!live(key)) {
      return null;
    }
    byte[] bytes = write((int) key);
    return new RawBsonDocument(Arrays.copyOf(bytes, BsonBytes.int32At(bytes, 0)));
  }

  /** Writes a live key's current document; returns the bytes, valid until the next call. */
  private byte[] write(int key) {
    Change change = changes.get(key);
    scratch.reset();
    int start = format.writeDocument(scratch, key, change == null ? key : change.content);
    int length = scratch.int32At(start);
    if (document.length < length + SLACK) {
      document = new byte[length + SLACK];
    }
    scratch.copyTo(start, length, document, 0);
    if (change != null && change.updated) {
      long fieldsAt = UpdatedDocument.fieldsAt(document);
      if (UpdatedDocument.versionAt(fieldsAt) == 0 || UpdatedDocument.updatedAtAt(fieldsAt) == 0) {
        document = UpdatedDocument.withFields(document, fieldsAt);
        fieldsAt = UpdatedDocument.fieldsAt(document);
      }
      BsonBytes.putInt32(document, UpdatedDocument.versionAt(fieldsAt), change.version);
      BsonBytes.putInt64(document, UpdatedDocument.updatedAtAt(fieldsAt), change.updatedAt);
    }
    return document;
  }

  /** Content numbers for new content start after the key space's own: no key's first document repeats. */
  private int nextContent() {
    return (int) ((keySpace + (long) replacements++) & Integer.MAX_VALUE);
  }
}
