package io.mongocdc.source.mongo;

import com.mongodb.MongoException;
import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.MongoChangeStreamCursor;
import com.mongodb.client.model.changestream.FullDocument;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;

/**
 * Opens a mirror's change stream with the MongoDB driver, reading events as raw BSON so the
 * driver decodes nothing and the decode pool does all the parsing.
 */
public final class MongoChangeStreamOpener implements ChangeStreamOpener {

  private final ChangeStreamTarget target;
  private final MongoSourceSettings settings;
  private final List<BsonDocument> pipeline;

  public MongoChangeStreamOpener(ChangeStreamTarget target, MongoSourceSettings settings) {
    this.target = Objects.requireNonNull(target, "target");
    this.settings = Objects.requireNonNull(settings, "settings");
    this.pipeline = ChangeStreamPipeline.build(settings);
  }

  @Override
  public ChangeStreamCursor open(StreamPosition position) {
    try {
      ChangeStreamIterable<BsonDocument> stream = configure(target.watch(pipeline), position);
      @SuppressWarnings("unchecked")
      MongoChangeStreamCursor<RawBsonDocument> cursor =
          (MongoChangeStreamCursor<RawBsonDocument>) stream.withDocumentClass(RawBsonDocument.class).cursor();
      return new MongoChangeStreamCursorAdapter(cursor, settings.splitLargeEvents());
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
  }

  /** Applies the mirror's options and start position; package-visible so tests can check the mapping. */
  ChangeStreamIterable<BsonDocument> configure(ChangeStreamIterable<BsonDocument> stream, StreamPosition position) {
    // Always updateLookup: an update then carries the document as the server finds it when the
    // event is read, or null once it is deleted, and the delete's own event follows. The other
    // modes (whenAvailable, required) would leave updates without a post-image that no later
    // event repairs.
    stream = stream
        .fullDocument(FullDocument.UPDATE_LOOKUP)
        .maxAwaitTime(settings.maxAwaitTime().toMillis(), TimeUnit.MILLISECONDS);
    if (settings.fullDocumentBeforeChange() != PreImageMode.OFF) {
      // Not sent when off: MongoDB 5.0 refuses the option by name.
      stream = stream.fullDocumentBeforeChange(settings.fullDocumentBeforeChange().driverValue());
    }
    if (settings.cursorBatchSize() > 0) {
      stream = stream.batchSize(settings.cursorBatchSize());
    }
    if (position instanceof StreamPosition.AfterToken after) {
      // startAfter behaves as resumeAfter for event tokens and also accepts an invalidate
      // event's token, which resumeAfter refuses.
      return stream.startAfter(after.token().toDocument());
    }
    return stream.startAtOperationTime(((StreamPosition.AtOperationTime) position).clusterTime());
  }
}
