package io.mongocdc.source.mongo;

import com.mongodb.MongoException;
import com.mongodb.MongoInterruptedException;
import com.mongodb.client.MongoChangeStreamCursor;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ResumeToken;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The cursor seam over the driver's change stream cursor. */
final class MongoChangeStreamCursorAdapter implements ChangeStreamCursor {

  private static final Logger log = LoggerFactory.getLogger(MongoChangeStreamCursorAdapter.class);

  private final MongoChangeStreamCursor<RawBsonDocument> cursor;
  private final SplitEventAssembler assembler;

  MongoChangeStreamCursorAdapter(MongoChangeStreamCursor<RawBsonDocument> cursor, boolean splitLargeEvents) {
    this.cursor = cursor;
    this.assembler = splitLargeEvents ? new SplitEventAssembler() : null;
  }

  @Override
  public RawBsonDocument tryNext() throws InterruptedException {
    try {
      while (true) {
        RawBsonDocument event = cursor.tryNext();
        if (event == null || assembler == null) {
          return event;
        }
        RawBsonDocument whole = assembler.offer(event);
        if (whole != null) {
          return whole;
        }
      }
    } catch (MongoInterruptedException e) {
      InterruptedException interrupted = new InterruptedException("change stream read interrupted");
      interrupted.initCause(e);
      throw interrupted;
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
  }

  @Override
  public boolean eventReady() {
    try {
      return cursor.available() > 0;
    } catch (MongoException e) {
      // Asked only to decide when to commit; the next tryNext reports the failure.
      return true;
    }
  }

  @Override
  public ResumeToken postBatchResumeToken() {
    if (assembler != null && assembler.inProgress()) {
      // Resuming after a fragment would yield the rest of an event without its beginning.
      return null;
    }
    BsonDocument token = cursor.getResumeToken();
    return token == null ? null : ResumeToken.fromDocument(token);
  }

  @Override
  public void close() {
    try {
      cursor.close();
    } catch (RuntimeException e) {
      log.warn("closing the change stream cursor failed: {}", io.mongocdc.secrets.Redaction.redact(e.getMessage()));
    }
  }
}
