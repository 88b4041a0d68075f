package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.DocumentRenderer;
import io.mongocdc.decode.DriverJsonKeyRenderer;
import io.mongocdc.decode.DriverJsonRenderer;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.devtools.generator.ResumeTokens;
import io.mongocdc.source.scripted.ManualClock;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.workflows.model.MirrorSettings;
import java.time.Duration;
import java.util.List;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;

/** Builds a PullRecords over a scripted stream, with a clock that idle polls advance. */
final class PullFixture {

  /** A position before every event the {@link io.mongocdc.source.scripted.ChangeEvents} make. */
  static final StreamPosition START =
      StreamPosition.after(ResumeTokens.highWaterMark(new BsonTimestamp(1_699_999_999, 1)));

  final ManualClock clock = new ManualClock();
  final ScriptedChangeStream stream;
  DocumentRenderer renderer = new DriverJsonRenderer();
  /** The decoded-bytes budget of the pulls; null: each PullRecords gets one of the default size. */
  DecodedBytesBudget budget;
  /** The decode slots of the pulls; null: each PullRecords gets its own. */
  DecodeThreads decodeThreads;
  /** What the pulls read through; null: {@link #stream} itself. */
  io.mongocdc.source.ChangeStreamOpener opener;
  /**
   * The mirror's settings of the pulls. Wall time decides nothing a test sees unless the test asks:
   * batches do not end by duration and the sink is not committed for visibility by time (the
   * longest the settings allow; a test of either sets it).
   */
  MirrorSettings.Builder mirror = MirrorSettings.defaults().toBuilder()
      .decodeWorkers(4)
      .chunkSize(16)
      .idleTimeoutSeconds(3)
      .maxBatchDurationSeconds(3_600)
      .maxVisibilityDelay(3_600_000);
  /** The worker's knobs of the pulls. */
  PullSettings.Builder settings = PullSettings.builder()
      .shutdownTimeout(Duration.ofSeconds(10));

  PullFixture(List<RawBsonDocument> events) {
    this(ScriptedChangeStream.builder().events(events));
  }

  PullFixture(ScriptedChangeStream.Builder script) {
    this.stream = script.clock(clock, Duration.ofSeconds(1)).build();
  }

  PullFixture budget(DecodedBytesBudget budget) {
    this.budget = budget;
    return this;
  }

  PullFixture decodeThreads(DecodeThreads decodeThreads) {
    this.decodeThreads = decodeThreads;
    return this;
  }

  PullFixture renderer(DocumentRenderer renderer) {
    this.renderer = renderer;
    return this;
  }

  PullRecords pullRecords() {
    ChangeEventDecoder decoder =
        new ChangeEventDecoder(renderer, new DriverJsonKeyRenderer(), DestinationTableResolver.sourceName(), ns -> false,
            ColumnProjections.NONE);
    io.mongocdc.source.ChangeStreamOpener source = opener == null ? stream : opener;
    PullRecords pull = budget == null
        ? new PullRecords("test", source, decoder, mirror.build(), settings.build(), clock,
            DecodedBytesBudget.ofDefaultSize())
        : new PullRecords("test", source, decoder, mirror.build(), settings.build(), clock, budget);
    return decodeThreads == null ? pull : pull.withDecodeThreads(decodeThreads);
  }

  PullResult pull(RecordSink sink) throws InterruptedException {
    return pullRecords().pull(START, sink, ProgressListener.none());
  }

  /** The tokens of records, in the order given. */
  static List<ResumeToken> positions(List<ChangeRecord> records) {
    return records.stream().map(ChangeRecord::position).toList();
  }

  /** Asserts the sink got exactly events {@code from..to-1} of the stream, in order. */
  void assertDeliveredInOrder(List<ChangeRecord> records, int from, int to) {
    List<ResumeToken> expected = java.util.stream.IntStream.range(from, to).mapToObj(stream::tokenOf).toList();
    assertEquals(expected, positions(records));
  }

  static PullRecordsException pullFailure(PullFixture fixture, RecordSink sink) {
    return org.junit.jupiter.api.Assertions.assertThrows(PullRecordsException.class, () -> fixture.pull(sink));
  }
}
