package io.mongocdc.pipeline;

import java.util.concurrent.CompletableFuture;

/**
 * A chunk handed to the decode pool, queued for the sender in the order the reader cut it.
 * The sender waits on {@code decoded} in queue order, which is what keeps records in source
 * order whatever order the workers finish in.
 *
 * @param firstReadNanos when the reader read the chunk's first event ({@link System#nanoTime}):
 *     the visibility delay of its records counts from there
 */
record ChunkInFlight(long sequence, CompletableFuture<DecodedChunk> decoded, long firstReadNanos) {

  /** Marks the end of the reader's chunks for this call. */
  static final ChunkInFlight END = new ChunkInFlight(-1, null, 0);

  /**
   * Tells the sender the reader has caught up with the stream (its cursor had nothing more to
   * read) after the chunks queued before this: what is written may be committed at once.
   */
  static final ChunkInFlight CAUGHT_UP = new ChunkInFlight(-2, null, 0);
}
