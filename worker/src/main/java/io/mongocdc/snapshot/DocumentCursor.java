package io.mongocdc.snapshot;

import org.bson.RawBsonDocument;

/** Documents of one snapshot partition, in no particular order. Used from one thread. */
public interface DocumentCursor extends AutoCloseable {

  /** The next document, or null once the partition is exhausted. Blocks while the server reads. */
  RawBsonDocument next();

  /** Closes the server cursor. Never throws; may be called from another thread to unblock next. */
  @Override
  void close();
}
