package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.DecodedEvent;
import java.util.ArrayList;
import java.util.List;

/** The decode pool's task: turns a raw chunk into decoded events, in order. */
final class ChunkDecoder {

  private final ChangeEventDecoder decoder;
  private final PipelineCounters counters;

  ChunkDecoder(ChangeEventDecoder decoder, PipelineCounters counters) {
    this.decoder = decoder;
    this.counters = counters;
  }

  DecodedChunk decode(RawChunk chunk) {
    long start = System.nanoTime();
    List<DecodedEvent> events = new ArrayList<>(chunk.events().size());
    int records = 0;
    for (int i = 0; i < chunk.events().size(); i++) {
      DecodedEvent event = decoder.decode(chunk.events().get(i), chunk.tokens().get(i));
      events.add(event);
      if (event instanceof ChangeRecord) {
        records++;
      }
    }
    counters.recordsDecoded.add(records);
    counters.decodeNanos.add(System.nanoTime() - start);
    return new DecodedChunk(chunk.sequence(), events, chunk.lastToken());
  }
}
