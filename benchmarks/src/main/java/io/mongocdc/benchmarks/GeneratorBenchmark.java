package io.mongocdc.benchmarks;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.devtools.generator.GeneratedChangeStream;
import io.mongocdc.devtools.generator.LoadProfile;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of the {@code mongo-cdc dev} load generator, which shares the JVM with the pipeline
 * it feeds: the demo profile at rate 0 with every collection's key space already full (the
 * update-heavy steady state), and the retention window already full.
 *
 * <p>{@code drain}: events per second one thread pulls from a cursor of the generator, which
 * makes them as it goes. {@code decode}: for comparison, events per second one thread decodes
 * and renders (what the pipeline's decode workers do, as mirrors run it) of 100 000 events the
 * generator made. The generator's share of the CPU is about {@code decode / drain}, an upper
 * bound, since the pipeline does more per event than decode. {@code reopen}: opening the stream
 * after a token in the middle of the 200 000 retained events, as the pipeline does after a
 * failure, in operations per second. Each method runs in its own fork, so {@code reopen} finds
 * its token still in the window.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class GeneratorBenchmark {

  static final int EVENTS = 100_000;
  private static final StreamPosition BEGINNING = StreamPosition.atOperationTime(new BsonTimestamp(0, 0));

  private GeneratedChangeStream stream;
  private ChangeStreamCursor cursor;
  private StreamPosition middle;
  private final List<RawBsonDocument> generated = new ArrayList<>(EVENTS);
  private final List<ResumeToken> tokens = new ArrayList<>(EVENTS);
  private final ChangeEventDecoder decoder = new ChangeEventDecoder(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(),
      DestinationTableResolver.sourceName(), ns -> false, ColumnProjections.NONE);

  @Setup(Level.Trial)
  public void setUp() throws InterruptedException {
    LoadProfile profile = LoadProfile.demo(42, 0, 0);
    stream = new GeneratedChangeStream(profile, Clock.systemUTC(), Duration.ofMillis(200));
    stream.prefill(profile.keySpace());
    cursor = stream.open(BEGINNING);
    ResumeToken halfway = null;
    for (int i = 0; i < profile.retainedEvents(); i++) {
      RawBsonDocument event = cursor.tryNext();
      if (i == profile.retainedEvents() / 2) {
        halfway = ResumeToken.ofEvent(event);
      }
      if (i >= profile.retainedEvents() - EVENTS) {
        generated.add(event);
        tokens.add(ResumeToken.ofEvent(event));
      }
    }
    middle = StreamPosition.after(halfway);
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public void drain(Blackhole blackhole) throws InterruptedException {
    for (int i = 0; i < EVENTS; i++) {
      blackhole.consume(cursor.tryNext());
    }
  }

  @Benchmark
  @OperationsPerInvocation(EVENTS)
  public void decode(Blackhole blackhole) {
    for (int i = 0; i < EVENTS; i++) {
      blackhole.consume(decoder.decode(generated.get(i), tokens.get(i)));
    }
  }

  @Benchmark
  public ChangeStreamCursor reopen() {
    return stream.open(middle);
  }
}
