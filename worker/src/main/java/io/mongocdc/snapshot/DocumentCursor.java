package io.mongocdc.snapshot;

import org.bson.RawBsonDocument;

/**
 * Documents of one snapshot partition, in no particular order as far as callers are concerned
 * (MongoDB's are read in {@code _id} order, so a lost server cursor is read on after its last
 * {@code _id}). Used from one thread.
 */
public interface DocumentCursor extends AutoCloseable {

  /** The next document, or null once the partition is exhausted. Blocks while the server reads. */
  RawBsonDocument next();

  /** Closes the server cursor. Never throws; may be called from another thread to unblock next. */
  @Override
  void close();
}
