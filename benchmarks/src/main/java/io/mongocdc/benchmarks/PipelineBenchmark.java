package io.mongocdc.benchmarks;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.DriverJsonKeyRenderer;
import io.mongocdc.decode.DriverJsonRenderer;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.pipeline.DecodedBytesBudget;
import io.mongocdc.privacy.HashKey;
import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.pipeline.ProgressListener;
import io.mongocdc.pipeline.PullRecords;
import io.mongocdc.pipeline.PullResult;
import io.mongocdc.pipeline.PullSettings;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.devtools.generator.ResumeTokens;
import io.mongocdc.devtools.generator.SampleDocuments;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The PullRecords core end to end, over a scripted cursor of pre-encoded change events carrying
 * ~2 KB documents, into a sink that only counts. {@code workers = 1} is the serial baseline;
 * {@code workers = 0} means one decode worker per available processor. The score is events per
 * second; the figure that matters is the ratio of the two for the same renderer, measured in
 * the same run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(1)
public class PipelineBenchmark {

  static final int EVENTS = 20_000;
  private static final StreamPosition START =
      StreamPosition.after(ResumeTokens.highWaterMark(new BsonTimestamp(1_699_999_999, 1)));

  @Param({"1", "0"})
  public int workers;

  /** {@code transcoder}: what mirrors use; {@code driver}: the driver's toJson, 4-6x slower per document. */
  @Param({"transcoder", "driver"})
  public String renderer;

  /**
   * {@code none}: no field rules; {@code five}: five rules on orders, applied in the decode pool as a
   * mirror applies them (run both with {@code -p rules=none,five}; the ratio is issue 32's figure).
   */
  @Param({"none"})
  public String rules;

  /** Two excludes, two hashes and a top-level wildcard, as FieldRulesBenchmark's five on its orders. */
  private static final FieldRuleSettings FIVE_RULES = new FieldRuleSettings(Map.of("orders", new FieldRules(
      List.of("customer.address", "note", "*.sku"), List.of("customer.email", "orderNumber"))));

  private ScriptedChangeStream stream;
  private PullRecords pullRecords;

  @Setup(Level.Trial)
  public void setUp() {
    ChangeEvents events = new ChangeEvents();
    Namespace ns = new Namespace("shop", "orders");
    List<RawBsonDocument> script = new ArrayList<>(EVENTS);
    for (int i = 0; i < EVENTS; i++) {
      script.add(i % 10 == 9
          ? events.update(ns, SampleDocuments.medium(i).get("_id"), SampleDocuments.medium(i), null)
          : events.insert(ns, SampleDocuments.medium(i)));
    }
    stream = ScriptedChangeStream.of(script);
    int decodeWorkers = workers == 0 ? Runtime.getRuntime().availableProcessors() : workers;
    MirrorSettings settings = MirrorSettings.defaults().toBuilder()
        .decodeWorkers(decodeWorkers)
        .batchSize(EVENTS)
        .build();
    ChangeEventDecoder decoder = renderer.equals("driver")
        ? new ChangeEventDecoder(new DriverJsonRenderer(), new DriverJsonKeyRenderer(), DestinationTableResolver.sourceName(),
            namespace -> false, ColumnProjections.NONE)
        : new ChangeEventDecoder(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(), DestinationTableResolver.sourceName(),
            namespace -> false, ColumnProjections.NONE);
    if (rules.equals("five")) {
      decoder = decoder.redacting(
          MirrorRedaction.of(FIVE_RULES, HashKey.of("the benchmark's field hash key..", "benchmark"))::changeEvent);
      String json = decoder.decode(decoder.redact(script.get(0)), ResumeTokens.highWaterMark(new BsonTimestamp(1, 1)))
          .toString();
      if (json.contains("address") || json.contains("SKU-") || json.contains("@example.com")) {
        throw new IllegalStateException("the rules did not apply: " + json);
      }
    } else if (!rules.equals("none")) {
      throw new IllegalArgumentException("rules is none or five, not " + rules);
    }
    pullRecords = new PullRecords("bench", stream, decoder, settings, PullSettings.defaults(), System::nanoTime,
        DecodedBytesBudget.ofDefaultSize());
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public PullResult pullRecords(Blackhole blackhole) throws InterruptedException {
    PullResult result = pullRecords.pull(START, new CountingSink(blackhole), ProgressListener.none());
    if (result.eventsRead() != EVENTS) {
      throw new IllegalStateException("read " + result.eventsRead() + " events, expected " + EVENTS);
    }
    return result;
  }

  /** Consumes records so the JIT cannot drop the work that produced them. */
  private static final class CountingSink implements RecordSink {
    private final Blackhole blackhole;

    CountingSink(Blackhole blackhole) {
      this.blackhole = blackhole;
    }

    @Override
    public void write(List<ChangeRecord> records) {
      for (ChangeRecord record : records) {
        blackhole.consume(record.document());
      }
    }

    @Override
    public void commit() {}
  }
}
