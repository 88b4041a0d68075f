package io.mongocdc.devtools.generator;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * The generator's model of one collection's documents: what the destination must end up holding.
 *
 * <p>Each live key's document is kept as BSON bytes in a buffer of its own that later versions
 * overwrite when they fit, and the buffers of deleted keys are reused by the next inserts: at
 * full speed the model then allocates next to nothing. Keys sit in a dense list for picking one
 * at random; removing one moves the last into its place.
 */
final class CollectionModel {

  // Room for a document to grow by a few digits without a new buffer.
  private static final int SLACK = 64;

  private final CollectionFormat format;
  private int[] ids = new int[1024];
  // documents[size..] are spare buffers of deleted keys.
  private byte[][] documents = new byte[1024][];
  // Where a document's version and updatedAt values are, once an update made sure it has both; 0 before.
  private int[] versionAt = new int[1024];
  private int[] updatedAtAt = new int[1024];
  private int size;
  private int nextDocument;

  CollectionModel(CollectionFormat format) {
    this.format = format;
  }

  CollectionFormat format() {
    return format;
  }

  int size() {
    return size;
  }

  int nextDocumentNumber() {
    return nextDocument++;
  }

  /** The place of a random live key. */
  int randomIndex(Random random) {
    return random.nextInt(size);
  }

  int idAt(int index) {
    return ids[index];
  }

  /** Adds key {@code id}, whose document {@code source} holds at {@code start}. */
  void add(int id, BsonBytes source, int start) {
    if (size == ids.length) {
      ids = Arrays.copyOf(ids, size * 2);
      documents = Arrays.copyOf(documents, size * 2);
      versionAt = Arrays.copyOf(versionAt, size * 2);
      updatedAtAt = Arrays.copyOf(updatedAtAt, size * 2);
    }
    ids[size] = id;
    set(size++, source, start);
  }

  /** Makes the document {@code source} holds at {@code start} the one of the key at {@code index}. */
  void set(int index, BsonBytes source, int start) {
    int length = source.int32At(start);
    if (documents[index] == null || documents[index].length < length) {
      documents[index] = new byte[length + SLACK];
    }
    source.copyTo(start, length, documents[index], 0);
    versionAt[index] = 0;
  }

  /** Sets the {@code version} and {@code updatedAt} of the key at {@code index}; returns its document. */
  byte[] update(int index, int version, long updatedAt) {
    if (versionAt[index] == 0) {
      long fieldsAt = UpdatedDocument.fieldsAt(documents[index]);
      if (UpdatedDocument.versionAt(fieldsAt) == 0 || UpdatedDocument.updatedAtAt(fieldsAt) == 0) {
        documents[index] = UpdatedDocument.withFields(documents[index], fieldsAt);
        fieldsAt = UpdatedDocument.fieldsAt(documents[index]);
      }
      versionAt[index] = UpdatedDocument.versionAt(fieldsAt);
      updatedAtAt[index] = UpdatedDocument.updatedAtAt(fieldsAt);
    }
    BsonBytes.putInt32(documents[index], versionAt[index], version);
    BsonBytes.putInt64(documents[index], updatedAtAt[index], updatedAt);
    return documents[index];
  }

  void removeAt(int index) {
    size--;
    byte[] spare = documents[index];
    ids[index] = ids[size];
    documents[index] = documents[size];
    versionAt[index] = versionAt[size];
    updatedAtAt[index] = updatedAtAt[size];
    documents[size] = spare;
  }

  /** Every live document by key, copied: the model's buffers change with later events. */
  Map<BsonValue, BsonDocument> snapshot() {
    Map<BsonValue, BsonDocument> live = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      live.put(format.key(ids[i]), document(i));
    }
    return live;
  }

  /** A copy of the document of the key at {@code index}. */
  RawBsonDocument document(int index) {
    return new RawBsonDocument(Arrays.copyOf(documents[index], BsonBytes.int32At(documents[index], 0)));
  }
}
