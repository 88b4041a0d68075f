package io.mongocdc.source.mongo;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCursor;
import io.mongocdc.snapshot.DocumentCursor;
import org.bson.RawBsonDocument;

/**
 * A snapshot partition's server cursor. After a close (also one from another thread, which the
 * driver applies once an in-flight getMore returns) next throws rather than returning null: a
 * closed cursor must not look like a fully read partition.
 */
final class MongoDocumentCursor implements DocumentCursor {

  private final MongoCursor<RawBsonDocument> cursor;
  private volatile boolean closed;

  MongoDocumentCursor(MongoCursor<RawBsonDocument> cursor) {
    this.cursor = cursor;
  }

  @Override
  public RawBsonDocument next() {
    if (closed) {
      throw new IllegalStateException("the snapshot cursor is closed");
    }
    try {
      if (cursor.hasNext()) {
        return cursor.next();
      }
      if (closed) {
        throw new IllegalStateException("the snapshot cursor was closed while reading");
      }
      return null;
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      cursor.close();
    } catch (RuntimeException ignored) {
      // Closing is best effort: the server reaps the cursor after its idle timeout anyway.
    }
  }
}
