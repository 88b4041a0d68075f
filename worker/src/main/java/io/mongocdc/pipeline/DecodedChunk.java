package io.mongocdc.pipeline;

import io.mongocdc.decode.DecodedEvent;
import io.mongocdc.source.ResumeToken;
import java.util.List;

/** A chunk after decoding: its events in source order, and the token it reaches. */
record DecodedChunk(long sequence, List<DecodedEvent> events, ResumeToken lastToken) {}
