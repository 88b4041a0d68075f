package io.mongocdc.pipeline;

import java.util.concurrent.CompletableFuture;

/**
 * A chunk handed to the decode pool, queued for the sender in the order the reader cut it.
 * The sender waits on {@code decoded} in queue order, which is what keeps records in source
 * order whatever order the workers finish in.
 */
record ChunkInFlight(long sequence, CompletableFuture<DecodedChunk> decoded) {

  /** Marks the end of the reader's chunks for this call. */
  static final ChunkInFlight END = new ChunkInFlight(-1, null);
}
