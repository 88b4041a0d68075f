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

  /**
   * A record's fixed share of the heap besides its text: the record, its strings' headers, the
   * commit time. An estimate; what matters is that text-less records are not free.
   */
  static final int RECORD_OVERHEAD_BYTES = 128;

  /**
   * Characters of JSON (key and document) one byte of a raw change event can become, at most. The
   * widest cases: a control character in a string is one byte and six characters ({@code
   * \u0001}); an undefined value with an empty name is two bytes and 23 characters ({@code
   * "":{"$undefined":true},}). The key and the document both come from parts of the same event,
   * which also holds its resume token and namespace, so the event's size bounds them together.
   */
  static final int MOST_CHARS_PER_RAW_BYTE = 12;

  /** An empty BSON document: what is kept of an event whose documents could not be redacted. */
  private static final byte[] EMPTY_DOCUMENT = {5, 0, 0, 0, 0};

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
    long bytes = 0;
    for (int i = 0; i < chunk.events().size(); i++) {
      DecodedEvent event = decode(chunk.events().get(i), chunk.tokens().get(i));
      events.add(event);
      bytes += heapBytesOf(event);
      if (event instanceof ChangeRecord) {
        records++;
      }
    }
    counters.recordsDecoded.add(records);
    counters.decodeNanos.add(System.nanoTime() - start);
    return new DecodedChunk(chunk.sequence(), events, chunk.lastToken(), bytes, DecodedBytesBudget.Lease.NONE);
  }

  /**
   * The most heap a chunk's decoded events can take, known before decoding: {@link
   * #MOST_CHARS_PER_RAW_BYTE} characters of key and document per byte of raw event, two bytes
   * each, plus {@link #RECORD_OVERHEAD_BYTES} per event. Always at least {@link #heapBytesOf}
   * summed over the chunk, so a reservation of it never runs short.
   */
  static long mostHeapBytesOf(RawChunk chunk) {
    long bytes = 0;
    for (RawBsonDocument event : chunk.events()) {
      bytes += RECORD_OVERHEAD_BYTES + 2L * MOST_CHARS_PER_RAW_BYTE * event.getByteBuffer().remaining();
    }
    return bytes;
  }

  /**
   * What a decoded event takes on the heap, at most: two bytes per character of its document and
   * key (a Java string holding any non-Latin-1 character stores two per character), plus {@link
   * #RECORD_OVERHEAD_BYTES}. Decoded JSON can be several times the raw BSON (a control character
   * is one byte in BSON and six in JSON), which is why raw bytes alone do not bound memory.
   */
  static long heapBytesOf(DecodedEvent event) {
    if (event instanceof ChangeRecord record) {
      long chars = record.key().length() + (record.document() == null ? 0 : record.document().length());
      return RECORD_OVERHEAD_BYTES + 2 * chars;
    }
    return RECORD_OVERHEAD_BYTES;
  }

  private DecodedEvent decode(RawBsonDocument read, ResumeToken position) {
    RawBsonDocument event;
    try {
      event = decoder.redact(read);
    } catch (IllegalArgumentException e) {
      // Not one byte of an event the field rules could not be applied to is kept.
      ChangeEventDecodeException failure = new ChangeEventDecodeException(position,
          "the mirror's field rules cannot be applied to this event: " + e.getMessage(), e);
      if (!setsAside) {
        throw failure;
      }
      return new UndecodableEvent(position, EMPTY_DOCUMENT.clone(), failure.getMessage());
    }
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
