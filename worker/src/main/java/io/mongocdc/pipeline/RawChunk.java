package io.mongocdc.pipeline;

import io.mongocdc.source.ResumeToken;
import java.util.List;
import org.bson.RawBsonDocument;

/**
 * Up to K raw events cut by the reader, tagged with its sequence number and the token up to
 * which it reaches: the last event's token, or a later post-batch token when the stream went
 * idle after it. A chunk may hold no events and only advance the token.
 */
record RawChunk(long sequence, List<RawBsonDocument> events, List<ResumeToken> tokens, ResumeToken lastToken) {}
