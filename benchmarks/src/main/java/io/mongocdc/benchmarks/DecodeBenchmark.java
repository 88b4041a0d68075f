package io.mongocdc.benchmarks;

import io.mongocdc.decode.DriverJsonRenderer;
import io.mongocdc.decode.TranscodingJsonRenderer;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.bson.BsonArray;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Rendering one raw document as relaxed Extended JSON: the driver's
 * {@code RawBsonDocument.toJson} (the baseline, what Java CDC connectors do) against our
 * {@link TranscodingJsonRenderer}, on the same corpus, one thread. Report the ratio
 * {@code transcoder / driverToJson} of the throughputs per shape (see docs/benchmarks.md).
 *
 * <p>Shapes: {@code small} ~200 B flat; {@code medium} ~2 KB with nested documents, arrays,
 * ObjectIds, dates, Decimal128 and non-ASCII strings; {@code large} ~30 KB of the same.
 * Each shape cycles through 32 different documents so branch prediction cannot learn one.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Threads(1)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class DecodeBenchmark {

  private static final int CORPUS_SIZE = 32;
  private static final String[] NAMES = {"Zoë Müller", "José Álvarez", "Łukasz Wróbel", "東京 太郎", "Ada Lovelace",
      "Søren Kierkegaard", "Nguyễn Văn A", "Олег Петров"};
  private static final String[] CITIES = {"Zürich", "São Paulo", "Köln", "Москва", "Paris", "大阪", "Kraków", "Austin"};
  private static final String[] WORDS = {"order", "shipped", "priority", "gift", "fragile", "express", "Café", "naïve",
      "résumé", "customer", "wholesale", "return", "übergroß", "日本", "discount"};

  @Param({"small", "medium", "large"})
  public String shape;

  private RawBsonDocument[] corpus;
  private int next;
  private final DriverJsonRenderer driver = new DriverJsonRenderer();
  private final TranscodingJsonRenderer transcoder = TranscodingJsonRenderer.relaxed();

  @Setup
  public void buildCorpus() {
    Random random = new Random(42);
    corpus = new RawBsonDocument[CORPUS_SIZE];
    for (int i = 0; i < CORPUS_SIZE; i++) {
      BsonDocument document = switch (shape) {
        case "small" -> small(random);
        case "medium" -> medium(random);
        case "large" -> large(random);
        default -> throw new IllegalArgumentException("unknown shape " + shape);
      };
      corpus[i] = new RawBsonDocument(document, new BsonDocumentCodec());
    }
    // Both sides must render the same documents to equivalent JSON, or the race is unfair.
    for (RawBsonDocument document : corpus) {
      if (!BsonDocument.parse(driver.render(document)).equals(BsonDocument.parse(transcoder.render(document)))) {
        throw new IllegalStateException("renderers disagree on " + document.toJson());
      }
    }
  }

  /** Average encoded size of the corpus in bytes (printed by {@link #main}). */
  public int averageSize() {
    long total = 0;
    for (RawBsonDocument document : corpus) {
      total += document.getByteBuffer().remaining();
    }
    return (int) (total / corpus.length);
  }

  @Benchmark
  public String driverToJson() {
    return driver.render(nextDocument());
  }

  @Benchmark
  public String transcoder() {
    return transcoder.render(nextDocument());
  }

  private RawBsonDocument nextDocument() {
    RawBsonDocument document = corpus[next];
    next = (next + 1) & (CORPUS_SIZE - 1);
    return document;
  }

  static BsonDocument small(Random random) {
    return new BsonDocument("_id", new BsonObjectId(new ObjectId()))
        .append("name", new BsonString(NAMES[random.nextInt(4) + 4].replaceAll("[^a-zA-Z ]", "x")))
        .append("email", new BsonString("user" + random.nextInt(100_000) + "@example.com"))
        .append("age", new BsonInt32(18 + random.nextInt(60)))
        .append("active", BsonBoolean.valueOf(random.nextBoolean()))
        .append("score", new BsonDouble(random.nextInt(10_000) / 100.0))
        .append("visits", new BsonInt64(random.nextInt(1_000_000)))
        .append("createdAt", new BsonDateTime(1_600_000_000_000L + random.nextInt(1_000_000_000)))
        .append("city", new BsonString("Springfield"))
        .append("country", new BsonString("US"))
        .append("plan", new BsonString(random.nextBoolean() ? "free" : "premium"))
        .append("referrer", BsonNull.VALUE);
  }

  static BsonDocument medium(Random random) {
    BsonArray items = new BsonArray();
    for (int i = 0; i < 11; i++) {
      items.add(item(random));
    }
    BsonArray tags = new BsonArray();
    for (int i = 0; i < 6; i++) {
      tags.add(new BsonString(WORDS[random.nextInt(WORDS.length)]));
    }
    return new BsonDocument("_id", new BsonObjectId(new ObjectId()))
        .append("orderNumber", new BsonString("ORD-" + random.nextInt(1_000_000)))
        .append("customer", new BsonDocument("customerId", new BsonObjectId(new ObjectId()))
            .append("name", new BsonString(NAMES[random.nextInt(NAMES.length)]))
            .append("email", new BsonString("customer" + random.nextInt(100_000) + "@example.org"))
            .append("address", new BsonDocument("street", new BsonString(random.nextInt(999) + " Hauptstraße"))
                .append("city", new BsonString(CITIES[random.nextInt(CITIES.length)]))
                .append("zip", new BsonString(Integer.toString(10_000 + random.nextInt(89_999))))
                .append("geo", new BsonArray(List.of(new BsonDouble(random.nextDouble() * 180 - 90),
                    new BsonDouble(random.nextDouble() * 360 - 180))))))
        .append("status", new BsonString("shipped"))
        .append("createdAt", new BsonDateTime(1_600_000_000_000L + random.nextInt(1_000_000_000)))
        .append("updatedAt", new BsonDateTime(1_700_000_000_000L + random.nextInt(1_000_000_000)))
        .append("items", items)
        .append("total", new BsonDecimal128(new Decimal128(BigDecimal.valueOf(random.nextInt(10_000_000), 2))))
        .append("currency", new BsonString("EUR"))
        .append("tags", tags)
        .append("notes", new BsonString("Bitte vor 18 Uhr liefern — fragile contents, handle with care. "
            + WORDS[random.nextInt(WORDS.length)]))
        .append("version", new BsonInt32(random.nextInt(20)));
  }

  private static BsonDocument item(Random random) {
    return new BsonDocument("sku", new BsonString("SKU-" + random.nextInt(100_000)))
        .append("productId", new BsonObjectId(new ObjectId()))
        .append("title", new BsonString(WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)]))
        .append("qty", new BsonInt32(1 + random.nextInt(5)))
        .append("price", new BsonDecimal128(new Decimal128(BigDecimal.valueOf(random.nextInt(100_000), 2))))
        .append("addedAt", new BsonDateTime(1_650_000_000_000L + random.nextInt(1_000_000_000)));
  }

  static BsonDocument large(Random random) {
    BsonArray orders = new BsonArray();
    for (int i = 0; i < 15; i++) {
      orders.add(medium(random));
    }
    return new BsonDocument("_id", new BsonObjectId(new ObjectId()))
        .append("account", new BsonString(NAMES[random.nextInt(NAMES.length)]))
        .append("orders", orders);
  }

  /** Prints the corpus sizes, to check the shapes stay near their nominal sizes. */
  public static void main(String[] args) {
    List<String> lines = new ArrayList<>();
    for (String shape : new String[] {"small", "medium", "large"}) {
      DecodeBenchmark benchmark = new DecodeBenchmark();
      benchmark.shape = shape;
      benchmark.buildCorpus();
      lines.add(shape + ": " + benchmark.averageSize() + " bytes on average");
    }
    lines.forEach(System.out::println);
  }
}
