package io.mongocdc.devtools.generator;

import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * Reads an in-memory collection in {@code _id} order, one batch at a time, like a server cursor:
 * a batch is taken when the previous one is used up, so changes made between batches are seen
 * if they lie ahead of the cursor.
 */
final class InMemoryDocumentCursor implements DocumentCursor {

  private final InMemoryCollection collection;
  private final IdRange range;
  private final DocumentFilter filter;
  private final int batchSize;
  private final Deque<RawBsonDocument> batch = new ArrayDeque<>();
  private BsonValue lastId;
  private boolean exhausted;
  private boolean closed;

  /** @param collection null if the collection did not exist at the open: the cursor reads nothing */
  InMemoryDocumentCursor(InMemoryCollection collection, IdRange range, DocumentFilter filter, int batchSize) {
    this.collection = collection;
    this.range = range;
    this.filter = filter;
    this.batchSize = batchSize;
  }

  @Override
  public RawBsonDocument next() {
    checkOpen();
    if (batch.isEmpty() && !exhausted && collection != null) {
      List<RawBsonDocument> next = collection.batchAfter(lastId, range, filter, batchSize);
      batch.addAll(next);
      exhausted = next.size() < batchSize;
      if (!next.isEmpty()) {
        lastId = next.get(next.size() - 1).get("_id");
      }
    }
    return batch.poll();
  }

  private synchronized void checkOpen() {
    if (closed) {
      // Never null: a closed cursor must not look like a fully read partition.
      throw new IllegalStateException("the snapshot cursor is closed");
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
  }
}
