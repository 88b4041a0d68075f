package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeEventDecodeException;
import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.DecodedEvent;
import io.mongocdc.decode.DocumentRenderException;
import io.mongocdc.decode.UndecodableEvent;
import io.mongocdc.source.ResumeToken;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.bson.RawBsonDocument;

/** The decode pool's task: turns a raw chunk into decoded events, in order. */
final class ChunkDecoder {

  private final ChangeEventDecoder decoder;
  private final PipelineCounters counters;
  private final boolean setsAside;

  /** @param setsAside hand undecodable events on (to be set aside) instead of failing the chunk */
  ChunkDecoder(ChangeEventDecoder decoder, PipelineCounters counters, boolean setsAside) {
    this.decoder = decoder;
    this.counters = counters;
    this.setsAside = setsAside;
  }

  DecodedChunk decode(RawChunk chunk) {
    long start = System.nanoTime();
    List<DecodedEvent> events = new ArrayList<>(chunk.events().size());
    int records = 0;
    for (int i = 0; i < chunk.events().size(); i++) {
      DecodedEvent event = decode(chunk.events().get(i), chunk.tokens().get(i));
      events.add(event);
      if (event instanceof ChangeRecord) {
        records++;
      }
    }
    counters.recordsDecoded.add(records);
    counters.decodeNanos.add(System.nanoTime() - start);
    return new DecodedChunk(chunk.sequence(), events, chunk.lastToken());
  }

  private DecodedEvent decode(RawBsonDocument event, ResumeToken position) {
    try {
      return decoder.decode(event, position);
    } catch (ChangeEventDecodeException | DocumentRenderException e) {
      if (!setsAside) {
        throw e;
      }
      ByteBuffer bytes = event.getByteBuffer().asNIO();
      byte[] raw = new byte[bytes.remaining()];
      bytes.get(raw);
      return new UndecodableEvent(position, raw, e.getMessage());
    }
  }
}
