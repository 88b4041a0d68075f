package io.mongocdc.devtools.generator;

import io.mongocdc.decode.Namespace;
import io.mongocdc.source.ResumeToken;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * A source peer that is the load generator rather than a MongoDB: the connection string
 * {@code generator:<database>?seed=42&events=200000&rate=0&collections=3&initialDocuments=0}, as a
 * worker's peers file gives it ({@code <peer>.uri=generator:...}). Every parameter is optional:
 *
 * <ul>
 *   <li>{@code seed} (default 42): the random seed; the same URI gives the same events.
 *   <li>{@code events} (default 0): events in all; the stream then stays idle. 0: no end.
 *   <li>{@code rate} (default 1000): events per second a cursor gets at most; 0: as fast as it
 *       reads. The rate says how fast events come, never what they are.
 *   <li>{@code collections} (default 3, at most 200): {@code orders} (~2 KB documents), {@code
 *       users} (~200 B), {@code products} (mostly small, one in fifty ~30 KB), then {@code
 *       orders_2}, {@code users_2}, {@code products_2}, {@code orders_3} ...
 *   <li>{@code initialDocuments} (default 0, at most {@code keySpace}): documents each collection
 *       holds before the first event, which a snapshot copies.
 *   <li>{@code keySpace} (default 10000, at most 100000000): documents per collection at most.
 *       Documents are made from the seed and their key when read, not stored, so a large key space
 *       and many initial documents cost no memory; the generator stores only the keys its events
 *       changed.
 *   <li>{@code transactions} (default 5): percent of operations that start a multi-document
 *       transaction.
 *   <li>{@code start} (default {@code 2025-01-01T00:00:00Z}): the cluster time of the stream's
 *       beginning, an ISO-8601 instant. Event {@code n}'s cluster time is {@code start + n} ms (a
 *       transaction's events share one); a mirror's replication lag is measured against it.
 * </ul>
 *
 * <p>Events, cluster times and resume tokens are a function of these parameters and of each
 * event's place in the stream alone (see {@link GeneratedChangeStream#replayable}): whichever
 * worker process serves a mirror, and wherever in the stream it opens it, it serves the same
 * events, so a mirror moves between workers without its stream changing under it. The URI holds
 * no secret.
 */
public record GeneratorUri(
    String database,
    long seed,
    long events,
    int rate,
    int collections,
    int initialDocuments,
    int keySpace,
    int transactionPercent,
    Instant start) {

  public static final String SCHEME = "generator";
  public static final Instant DEFAULT_START = Instant.parse("2025-01-01T00:00:00Z");
  public static final int MAX_COLLECTIONS = 200;
  /** The largest key space: documents per collection at most. */
  public static final int MAX_KEY_SPACE = 100_000_000;
  /** Events a worker keeps per mirror to reopen at; before them it makes the stream again from its start. */
  static final int RETAINED_EVENTS = 4_096;
  private static final Instant LATEST_START = Instant.parse("2038-01-01T00:00:00Z");
  private static final Pattern DATABASE = Pattern.compile("[A-Za-z0-9_-]{1,63}");
  private static final List<String> PARAMETERS =
      List.of("seed", "events", "rate", "collections", "initialDocuments", "keySpace", "transactions", "start");
  private static final String[] SHAPES = {"orders", "users", "products"};

  /** @throws IllegalArgumentException naming the first value that cannot work */
  public GeneratorUri {
    if (database == null || !DATABASE.matcher(database).matches()) {
      throw new IllegalArgumentException("the database name " + quoted(database)
          + " must be 1 to 63 letters, digits, '_' or '-' (generator:<database>?...)");
    }
    atLeast("events", events, 0);
    atLeast("rate", rate, 0);
    between("collections", collections, 1, MAX_COLLECTIONS);
    between("keySpace", keySpace, 1, MAX_KEY_SPACE);
    between("initialDocuments", initialDocuments, 0, keySpace);
    between("transactions", transactionPercent, 0, 100);
    if (start == null || start.isBefore(Instant.EPOCH) || !start.isBefore(LATEST_START)) {
      throw new IllegalArgumentException("start must be an instant from 1970-01-01T00:00:00Z to before "
          + LATEST_START + ", got " + start);
    }
  }

  /** Whether a connection string names the generator (its scheme is {@code generator:}). */
  public static boolean isGenerator(String connectionString) {
    return connectionString != null && connectionString.regionMatches(true, 0, SCHEME + ":", 0, SCHEME.length() + 1);
  }

  /**
   * Parses a generator URI.
   *
   * @throws IllegalArgumentException naming the parameter that is wrong and why
   */
  public static GeneratorUri parse(String uri) {
    if (!isGenerator(uri)) {
      throw new IllegalArgumentException("a generator URI starts with 'generator:', got " + quoted(uri));
    }
    String rest = uri.substring(SCHEME.length() + 1);
    if (rest.startsWith("//")) {
      throw new IllegalArgumentException("write generator:<database>?..., without '//'");
    }
    int query = rest.indexOf('?');
    String database = query < 0 ? rest : rest.substring(0, query);
    Map<String, String> values = new LinkedHashMap<>();
    if (query >= 0) {
      for (String parameter : rest.substring(query + 1).split("&")) {
        if (parameter.isEmpty()) {
          continue;
        }
        int equals = parameter.indexOf('=');
        String name = equals < 0 ? parameter : parameter.substring(0, equals);
        if (!PARAMETERS.contains(name)) {
          throw new IllegalArgumentException("unknown parameter " + quoted(name) + "; the parameters are "
              + String.join(", ", PARAMETERS));
        }
        if (equals < 0 || equals == parameter.length() - 1) {
          throw new IllegalArgumentException("parameter " + name + " needs a value (" + name + "=...)");
        }
        if (values.put(name, parameter.substring(equals + 1)) != null) {
          throw new IllegalArgumentException("parameter " + name + " is given twice");
        }
      }
    }
    return new GeneratorUri(database,
        number(values, "seed", 42, Long.MIN_VALUE, Long.MAX_VALUE),
        number(values, "events", 0, Long.MIN_VALUE, Long.MAX_VALUE),
        (int) number(values, "rate", 1_000, Integer.MIN_VALUE, Integer.MAX_VALUE),
        (int) number(values, "collections", 3, Integer.MIN_VALUE, Integer.MAX_VALUE),
        (int) number(values, "initialDocuments", 0, Integer.MIN_VALUE, Integer.MAX_VALUE),
        (int) number(values, "keySpace", 10_000, Integer.MIN_VALUE, Integer.MAX_VALUE),
        (int) number(values, "transactions", 5, Integer.MIN_VALUE, Integer.MAX_VALUE),
        instant(values.get("start")));
  }

  /** The URI with every parameter spelled out: what {@link #parse} reads back to this. */
  public String toUri() {
    return SCHEME + ":" + database + "?seed=" + seed + "&events=" + events + "&rate=" + rate + "&collections="
        + collections + "&initialDocuments=" + initialDocuments + "&keySpace=" + keySpace + "&transactions="
        + transactionPercent + "&start=" + start;
  }

  /** The collections' names, in the generator's order. */
  public List<String> collectionNames() {
    List<String> names = new ArrayList<>(collections);
    for (int i = 0; i < collections; i++) {
      names.add(SHAPES[i % 3] + (i < 3 ? "" : "_" + (i / 3 + 1)));
    }
    return names;
  }

  public List<Namespace> namespaces() {
    return collectionNames().stream().map(c -> new Namespace(database, c)).toList();
  }

  /** What the generator makes. */
  public LoadProfile profile() {
    return new LoadProfile(seed, namespaces(), keySpace, rate, events, RETAINED_EVENTS, OperationMix.DEFAULT,
        transactionPercent, 0);
  }

  /**
   * A new stream of this URI's events, positioned before the first one, its collections holding
   * their initial documents ({@link #initialDocuments}, read by {@link #initialCollections} too).
   */
  public GeneratedChangeStream newStream(Duration maxAwaitTime) {
    GeneratedChangeStream stream = GeneratedChangeStream.replayable(profile(), start.toEpochMilli(), maxAwaitTime);
    stream.prefill(initialDocuments);
    return stream;
  }

  /**
   * The collections as they are before the first event: what a snapshot copies. Their documents
   * are made as they are read.
   */
  public GeneratedCollections initialCollections() {
    return newStream(Duration.ZERO).collections(seed);
  }

  /**
   * The state every collection ends in after the last event, made here from the URI alone: what
   * the destination of a mirror of this stream must hold once it delivered {@link
   * FinalState#lastEventToken()}. Another process computes the same. It holds the keys the
   * events changed, not the documents, so it costs as little for a collection of millions.
   *
   * @throws IllegalStateException if the stream has no end ({@code events=0})
   */
  public FinalState finalState() {
    GeneratedChangeStream stream = newStream(Duration.ZERO);
    stream.generateAll();
    return new FinalState(stream.collections(seed), stream.lastEventToken(), stream.eventsGenerated());
  }

  /**
   * A bounded generator's outcome.
   *
   * @param collections every collection after the last event, read a batch at a time
   * @param lastEventToken the resume token of the last event (null if there are none)
   * @param events the number of events
   */
  public record FinalState(GeneratedCollections collections, ResumeToken lastEventToken, long events) {

    /** Every collection's documents by {@code _id} after the last event, all in memory: for tests of small collections. */
    public Map<Namespace, Map<BsonValue, BsonDocument>> documents() {
      return collections.documents();
    }
  }

  private static long number(Map<String, String> values, String name, long defaultValue, long min, long max) {
    String text = values.get(name);
    if (text == null) {
      return defaultValue;
    }
    long value;
    try {
      value = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, got " + quoted(text));
    }
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + " is out of range, got " + text);
    }
    return value;
  }

  private static Instant instant(String text) {
    if (text == null) {
      return DEFAULT_START;
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("start must be an ISO-8601 instant such as 2025-01-01T00:00:00Z, got "
          + quoted(text));
    }
  }

  private static void atLeast(String name, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", got " + value);
    }
  }

  private static void between(String name, long value, long min, long max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + " must be from " + min + " to " + max + ", got " + value);
    }
  }

  private static String quoted(String text) {
    return text == null ? "nothing" : "'" + text + "'";
  }

  @Override
  public String toString() {
    return toUri();
  }
}
