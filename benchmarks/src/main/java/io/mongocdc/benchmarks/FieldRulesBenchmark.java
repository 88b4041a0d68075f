package io.mongocdc.benchmarks;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DecodedEvent;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.privacy.HashKey;
import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRules;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of field rules where they run, the decode pool: one update event (a ~2 KB order as its
 * post-image, two updated fields) decoded as a batch decodes it, without rules ({@code noRules}, the
 * baseline) and with five ({@code fiveRules}): two excludes ({@code customer.address}, {@code
 * notes}), two hashes ({@code customer.email}, {@code orderNumber}) and one wildcard exclude
 * ({@code *.productId}, in each of the eleven line items). Report the ratio {@code fiveRules /
 * noRules} of the throughputs (docs/benchmarks.md, target at least 0.9); {@code oneRuleMatchingNothing}
 * is the floor of any rule, the pass over the event that copies it. The events are slices of
 * one 4 MiB array, as a cursor's batch or the generator's slabs hold them.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(1)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class FieldRulesBenchmark {

  private static final int CORPUS_SIZE = 32;
  private static final FieldRuleSettings FIVE_RULES = new FieldRuleSettings(Map.of("orders", new FieldRules(
      List.of("customer.address", "notes", "*.productId"), List.of("customer.email", "orderNumber"))));

  /** One rule that matches no field of the events: the cost of the pass itself, the floor of any rule. */
  private static final FieldRuleSettings NOTHING_MATCHES = new FieldRuleSettings(Map.of("orders", new FieldRules(
      List.of("noSuchField"), List.of())));

  private RawBsonDocument[] events;
  private ResumeToken[] tokens;
  private int next;
  private final ChangeEventDecoder plain = new ChangeEventDecoder(TranscodingJsonRenderer.relaxed(),
      new IdKeyRenderer(), DestinationTableResolver.sourceName(), ns -> false, ColumnProjections.NONE);
  private ChangeEventDecoder redacting;
  private ChangeEventDecoder passing;

  @Setup
  public void buildEvents() {
    Random random = new Random(42);
    events = new RawBsonDocument[CORPUS_SIZE];
    tokens = new ResumeToken[CORPUS_SIZE];
    for (int i = 0; i < CORPUS_SIZE; i++) {
      BsonDocument order = DecodeBenchmark.medium(random);
      String data = "82" + HexFormat.of().withUpperCase().toHexDigits(1_700_000_000 + i) + "00000001" + "2B0404";
      BsonDocument event = new BsonDocument("_id", new BsonDocument("_data", new BsonString(data)))
          .append("operationType", new BsonString("update"))
          .append("clusterTime", new BsonTimestamp(1_700_000_000 + i, 1))
          .append("wallTime", new BsonDateTime(1_700_000_000_000L + i))
          .append("ns", new BsonDocument("db", new BsonString("shop")).append("coll", new BsonString("orders")))
          .append("documentKey", new BsonDocument("_id", order.get("_id")))
          .append("updateDescription", new BsonDocument("updatedFields", new BsonDocument("status",
              new BsonString("shipped")).append("customer.email", order.getDocument("customer").get("email")))
              .append("removedFields", new org.bson.BsonArray()).append("truncatedArrays", new org.bson.BsonArray()))
          .append("fullDocument", order);
      events[i] = new RawBsonDocument(event, new BsonDocumentCodec());
      tokens[i] = ResumeToken.of(data);
    }
    // As a cursor's batch holds them: slices of one large array, as the generator's are too.
    byte[] batch = new byte[4 << 20];
    int at = 0;
    for (int i = 0; i < CORPUS_SIZE; i++) {
      java.nio.ByteBuffer bytes = events[i].getByteBuffer().asNIO();
      int length = bytes.remaining();
      bytes.get(batch, at, length);
      events[i] = new RawBsonDocument(batch, at, length);
      at += length;
    }
    MirrorRedaction rules = MirrorRedaction.of(FIVE_RULES, HashKey.of("the benchmark's field hash key..", "benchmark"));
    redacting = plain.redacting(rules::changeEvent);
    passing = plain.redacting(MirrorRedaction.of(NOTHING_MATCHES, null)::changeEvent);
    // The rules must act, or the race measures nothing.
    String json = redacting.decode(redacting.redact(events[0]), tokens[0]).toString();
    if (json.contains("address") || json.contains("productId") || json.contains("@example.org")) {
      throw new IllegalStateException("the rules did not apply: " + json);
    }
  }

  @Benchmark
  public DecodedEvent noRules() {
    int i = nextIndex();
    return plain.decode(plain.redact(events[i]), tokens[i]);
  }

  @Benchmark
  public DecodedEvent fiveRules() {
    int i = nextIndex();
    return redacting.decode(redacting.redact(events[i]), tokens[i]);
  }

  @Benchmark
  public DecodedEvent oneRuleMatchingNothing() {
    int i = nextIndex();
    return passing.decode(passing.redact(events[i]), tokens[i]);
  }

  /** The five rules alone, without the decode: what they cost before the decoder's savings on a smaller document. */
  @Benchmark
  public RawBsonDocument fiveRulesAlone() {
    return redacting.redact(events[nextIndex()]);
  }

  private int nextIndex() {
    int i = next;
    next = (next + 1) & (CORPUS_SIZE - 1);
    return i;
  }
}
