package io.mongocdc.devtools.generator;

import io.mongocdc.snapshot.BsonIdOrder;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.IdTypeBracket;
import java.util.ArrayDeque;
import java.util.Deque;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * Reads a generated collection in {@code _id} order, one batch at a time, like a server cursor:
 * each batch is made from the generator's model as it is when the previous batch is used up, so
 * changes between batches are seen if they lie ahead of the cursor. The cursor remembers the last
 * key it passed, never the documents behind it.
 */
final class GeneratedDocumentCursor implements DocumentCursor {

  // Keys looked at per visit to the generator's lock at most, so a filter that matches little
  // does not hold the generator up for a whole collection.
  private static final int KEYS_PER_VISIT = 4_096;

  private final GeneratedChangeStream stream;
  private final String collection;
  private final IdRange range;
  private final DocumentFilter filter;
  private final int batchSize;
  private final Deque<RawBsonDocument> batch = new ArrayDeque<>();
  // The last key looked at; -1 before the first.
  private long lastKey = -1;
  private boolean exhausted;
  private volatile boolean closed;

  GeneratedDocumentCursor(GeneratedChangeStream stream, String collection, IdRange range, DocumentFilter filter,
      int batchSize) {
    this.stream = stream;
    this.collection = collection;
    this.range = range;
    this.filter = filter;
    this.batchSize = batchSize;
  }

  @Override
  public RawBsonDocument next() {
    while (batch.isEmpty() && !exhausted) {
      checkOpen();
      stream.read(collection, this::readBatch);
    }
    checkOpen();
    return batch.poll();
  }

  /** Adds the next live documents in range to the batch, up to its size or {@link #KEYS_PER_VISIT} keys looked at. */
  private Void readBatch(CollectionModel model) {
    if (model == null) {
      exhausted = true;
      return null;
    }
    CollectionFormat format = model.format();
    long limit = model.keyLimit();
    long key = lastKey < 0 ? start(format, limit) : KeyOrder.next(format, lastKey, limit);
    for (int looked = 0; key >= 0 && batch.size() < batchSize && looked < KEYS_PER_VISIT; looked++) {
      BsonValue id = format.key((int) key);
      if (range.upper() != null && BsonIdOrder.INSTANCE.compare(id, range.upper()) >= 0) {
        key = -1;
        break;
      }
      if (range.contains(id)) {
        RawBsonDocument document = model.document(key);
        if (document != null && filter.matches(document)) {
          batch.add(document);
        }
      }
      lastKey = key;
      key = KeyOrder.next(format, key, limit);
    }
    exhausted = key < 0;
    return null;
  }

  /** The first key the range can hold, or -1 if it holds none. */
  private long start(CollectionFormat format, long limit) {
    BsonValue anyKey = format.key(0);
    if (range.bracket() == null) {
      return range.contains(anyKey) ? KeyOrder.first(limit) : -1;
    }
    if (range.bracket() != IdTypeBracket.of(anyKey)) {
      return -1;
    }
    return range.lower() == null ? KeyOrder.first(limit) : KeyOrder.seek(format, range.lower(), limit);
  }

  private void checkOpen() {
    if (closed) {
      // Never null: a closed cursor must not look like a fully read partition.
      throw new IllegalStateException("the snapshot cursor is closed");
    }
  }

  @Override
  public void close() {
    closed = true;
  }
}
