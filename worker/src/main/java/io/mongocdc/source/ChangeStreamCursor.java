package io.mongocdc.source;

import org.bson.RawBsonDocument;

/**
 * The seam between the MongoDB driver and the pipeline: an open change stream that yields raw
 * change events.
 *
 * <p>Implementations return events exactly as the server sent them (raw BSON, not decoded), so
 * the expensive parsing happens in the decode pool. A cursor is used by one thread at a time.
 */
public interface ChangeStreamCursor extends AutoCloseable {

  /**
   * The next raw change event, or {@code null} when none arrived within the cursor's await time.
   *
   * @throws ChangeStreamException for a server-side failure, classified by type
   * @throws InterruptedException if the calling thread was interrupted while waiting
   */
  RawBsonDocument tryNext() throws InterruptedException;

  /**
   * Whether {@link #tryNext} would return an event now without waiting for the server (the
   * driver's cursor has one in the batch it holds; a generated stream has one due). False means
   * the reader has caught up with the stream: it has read everything there is to read right now.
   * Cursors that cannot tell answer true, and are caught up only when {@code tryNext} returns null.
   */
  default boolean eventReady() {
    return true;
  }

  /**
   * The post-batch resume token of the most recent server batch, or {@code null} if the server
   * gave none. On an idle stream it moves forward even though no event arrives, which is what
   * keeps a quiet mirror's checkpoint inside the oplog window.
   */
  ResumeToken postBatchResumeToken();

  /** Releases the server-side cursor. Never throws. */
  @Override
  void close();
}
