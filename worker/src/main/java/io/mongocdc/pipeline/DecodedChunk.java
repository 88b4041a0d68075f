package io.mongocdc.pipeline;

import io.mongocdc.decode.DecodedEvent;
import io.mongocdc.source.ResumeToken;
import java.util.List;

/**
 * A chunk after decoding: its events in source order, the token it reaches, what its decoded
 * events take on the heap ({@link ChunkDecoder#heapBytesOf}), and the share of the decoded-bytes
 * budget it holds until the destination has taken it.
 */
record DecodedChunk(
    long sequence, List<DecodedEvent> events, ResumeToken lastToken, long decodedBytes, DecodedBytesBudget.Lease lease) {

  DecodedChunk withLease(DecodedBytesBudget.Lease value) {
    return new DecodedChunk(sequence, events, lastToken, decodedBytes, value);
  }
}
