package io.mongocdc.source.mongo;

import com.mongodb.MongoException;
import com.mongodb.client.MongoCursor;
import io.mongocdc.secrets.Redaction;
import io.mongocdc.snapshot.DocumentCursor;
import java.util.function.Function;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A snapshot partition's server cursor, read in {@code _id} order. After a close (also one from
 * another thread, which the driver applies once an in-flight getMore returns) next throws rather
 * than returning null: a closed cursor must not look like a fully read partition.
 *
 * <p>A server cursor can be lost while the collection is fine: reaped after ten idle minutes
 * behind a stalled destination, killed by an operator, or its plan killed by an index drop. Then
 * the partition is read again from just after the last {@code _id} this cursor returned, so
 * nothing is skipped (the read is in {@code _id} order) and nothing already returned comes again;
 * what changed meanwhile reaches the destination through the change stream, as for any document
 * the snapshot read. A cursor lost again and again without returning a document fails the read.
 */
final class MongoDocumentCursor implements DocumentCursor {

  private static final Logger log = LoggerFactory.getLogger(MongoDocumentCursor.class);

  /** Reopens in a row that returned no document before the read counts as failed. */
  static final int MAX_REOPENS_WITHOUT_PROGRESS = 3;

  private final String what;
  private final Function<BsonValue, MongoCursor<RawBsonDocument>> openAfter;
  private volatile MongoCursor<RawBsonDocument> cursor;
  private volatile boolean closed;
  private BsonValue lastId;
  private int reopensWithoutProgress;

  /**
   * @param what the partition, for log lines
   * @param openAfter opens the partition's documents after an {@code _id} in {@code _id} order
   *     (null: from the start)
   */
  MongoDocumentCursor(String what, Function<BsonValue, MongoCursor<RawBsonDocument>> openAfter) {
    this.what = what;
    this.openAfter = openAfter;
    this.cursor = openAfter.apply(null);
  }

  @Override
  public RawBsonDocument next() {
    while (true) {
      if (closed) {
        throw new IllegalStateException("the snapshot cursor is closed");
      }
      try {
        if (cursor.hasNext()) {
          RawBsonDocument document = cursor.next();
          lastId = document.get("_id");
          reopensWithoutProgress = 0;
          return document;
        }
        if (closed) {
          throw new IllegalStateException("the snapshot cursor was closed while reading");
        }
        return null;
      } catch (MongoException e) {
        if (closed || !ChangeStreamErrors.CURSOR_LOST.contains(e.getCode()) || reopensWithoutProgress >= MAX_REOPENS_WITHOUT_PROGRESS) {
          throw ChangeStreamErrors.classify(e);
        }
        reopensWithoutProgress++;
        log.warn("snapshot read of {}: the server cursor was lost (MongoDB error {}: {}); reading on after _id {}",
            what, e.getCode(), Redaction.redact(e.getMessage()), lastId == null ? "(none yet)" : lastId);
        closeQuietly(cursor);
        reopen();
      }
    }
  }

  private void reopen() {
    try {
      cursor = openAfter.apply(lastId);
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
    if (closed) {
      // Closed from another thread while reopening: the new cursor must not outlive the read.
      closeQuietly(cursor);
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(cursor);
  }

  private static void closeQuietly(MongoCursor<RawBsonDocument> cursor) {
    try {
      cursor.close();
    } catch (RuntimeException ignored) {
      // Closing is best effort: the server reaps the cursor after its idle timeout anyway.
    }
  }
}
