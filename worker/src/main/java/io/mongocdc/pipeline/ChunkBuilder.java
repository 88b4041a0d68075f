package io.mongocdc.pipeline;

import io.mongocdc.source.ResumeToken;
import java.util.ArrayList;
import java.util.List;
import org.bson.RawBsonDocument;

/** The chunk the reader is filling. */
final class ChunkBuilder {

  private final int chunkSize;
  private final int maxChunkBytes;
  private List<RawBsonDocument> events;
  private List<ResumeToken> tokens;
  private ResumeToken lastToken;
  private long bytes;
  private long firstEventNanos;
  private long nextSequence;

  ChunkBuilder(int chunkSize, int maxChunkBytes) {
    this.chunkSize = chunkSize;
    this.maxChunkBytes = maxChunkBytes;
    reset();
  }

  void add(RawBsonDocument event, ResumeToken token, int size) {
    if (events.isEmpty()) {
      firstEventNanos = System.nanoTime();
    }
    events.add(event);
    tokens.add(token);
    lastToken = token;
    bytes += size;
  }

  /** Moves the chunk's reach to a post-batch token past its last event. */
  void advanceTo(ResumeToken postBatchToken) {
    lastToken = postBatchToken;
  }

  boolean isFull() {
    return events.size() >= chunkSize || bytes >= maxChunkBytes;
  }

  /** True if the chunk holds nothing: no event and no token to advance to. */
  boolean isEmpty() {
    return lastToken == null;
  }

  /** When the chunk's first event was added ({@link System#nanoTime}); now if it has none. */
  long firstEventNanos() {
    return events.isEmpty() ? System.nanoTime() : firstEventNanos;
  }

  RawChunk cut() {
    RawChunk chunk = new RawChunk(nextSequence++, events, tokens, lastToken);
    reset();
    return chunk;
  }

  private void reset() {
    events = new ArrayList<>(Math.min(chunkSize, 1024));
    tokens = new ArrayList<>(Math.min(chunkSize, 1024));
    lastToken = null;
    bytes = 0;
  }
}
