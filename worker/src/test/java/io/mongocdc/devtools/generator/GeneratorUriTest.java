package io.mongocdc.devtools.generator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.Namespace;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

/**
 * The generator as a source peer: its URI, and the promise a cluster relies on, that the events
 * and their tokens are a function of the URI and of their place in the stream alone.
 */
class GeneratorUriTest {

  /** What {@code mongo-cdc dev} prints for {@code mirror suggest-columns}: a peer that samples dev's documents. */
  @Test
  void aDemoUriHoldsTheDocumentsDevStartsWith() {
    GeneratedChangeStream devStream =
        new GeneratedChangeStream(LoadProfile.demo(42, 0, 0), java.time.Clock.systemUTC(), Duration.ZERO);
    devStream.prefill(300);
    Map<Namespace, Map<BsonValue, BsonDocument>> dev = devStream.collections(42).documents();
    assertEquals(300, dev.get(new Namespace("demo", "orders")).size());
    assertEquals(dev, GeneratorUri.parse("generator:demo?seed=42&initialDocuments=300").initialCollections().documents());
  }

  private static final StreamPosition BEGINNING = StreamPosition.atOperationTime(new BsonTimestamp(0, 0));
  private static final String URI = "generator:demo?seed=7&events=3000&rate=0&collections=3&initialDocuments=40"
      + "&keySpace=500&transactions=20";

  @Test
  void everyParameterHasADefaultAndTheUriReadsBackToItself() {
    GeneratorUri defaults = GeneratorUri.parse("generator:demo");
    assertEquals(new GeneratorUri("demo", 42, 0, 1_000, 3, 0, 10_000, 5, GeneratorUri.DEFAULT_START), defaults);
    assertEquals(List.of("orders", "users", "products"), defaults.collectionNames());
    GeneratorUri all = GeneratorUri.parse("generator:shop?seed=-3&events=10&rate=5&collections=5&initialDocuments=7"
        + "&keySpace=100&transactions=0&start=2026-02-03T04:05:06Z");
    assertEquals(List.of("orders", "users", "products", "orders_2", "users_2"), all.collectionNames());
    assertEquals(new Namespace("shop", "users_2"), all.namespaces().get(4));
    assertEquals(Instant.parse("2026-02-03T04:05:06Z"), all.start());
    assertEquals(all, GeneratorUri.parse(all.toUri()));
    assertTrue(GeneratorUri.isGenerator("GENERATOR:demo"));
    assertFalse(GeneratorUri.isGenerator("mongodb://db1/?replicaSet=rs0"));
  }

  @Test
  void aValueThatCannotWorkIsRefusedNamingItsParameter() {
    Map<String, String> wrong = new java.util.LinkedHashMap<>();
    wrong.put("generator:demo?seed=abc", "seed must be a whole number, got 'abc'");
    wrong.put("generator:demo?events=-1", "events must be at least 0, got -1");
    wrong.put("generator:demo?rate=fast", "rate must be a whole number, got 'fast'");
    wrong.put("generator:demo?rate=99999999999", "rate is out of range, got 99999999999");
    wrong.put("generator:demo?collections=0", "collections must be from 1 to 200, got 0");
    wrong.put("generator:demo?keySpace=100&initialDocuments=101", "initialDocuments must be from 0 to 100, got 101");
    wrong.put("generator:demo?transactions=101", "transactions must be from 0 to 100, got 101");
    wrong.put("generator:demo?start=yesterday", "start must be an ISO-8601 instant");
    wrong.put("generator:demo?start=2040-01-01T00:00:00Z", "start must be an instant from 1970");
    wrong.put("generator:demo?sede=1", "unknown parameter 'sede'; the parameters are seed, events, rate");
    wrong.put("generator:demo?seed=1&seed=2", "parameter seed is given twice");
    wrong.put("generator:demo?seed", "parameter seed needs a value (seed=...)");
    wrong.put("generator:demo?seed=", "parameter seed needs a value (seed=...)");
    wrong.put("generator:?seed=1", "the database name '' must be 1 to 63 letters");
    wrong.put("generator:my.db", "the database name 'my.db' must be 1 to 63 letters");
    wrong.put("generator://demo", "write generator:<database>?..., without '//'");
    wrong.put("mongodb://demo", "a generator URI starts with 'generator:'");
    wrong.forEach((uri, message) -> {
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> GeneratorUri.parse(uri), uri);
      assertTrue(refused.getMessage().startsWith(message), uri + ": " + refused.getMessage());
    });
  }

  @Test
  void theSameUriMakesByteIdenticalEventsAndTokensWhateverTheRate() throws Exception {
    List<RawBsonDocument> first = drain(GeneratorUri.parse(URI).newStream(Duration.ofMillis(1)), BEGINNING);
    List<RawBsonDocument> again = drain(GeneratorUri.parse(URI).newStream(Duration.ofMillis(1)), BEGINNING);
    // Rate-limited and read through idle post-batch tokens: the same events, only slower.
    GeneratorUri limited = GeneratorUri.parse(URI.replace("rate=0", "rate=6000"));
    List<RawBsonDocument> slow = drainThroughIdleTokens(limited.newStream(Duration.ZERO));
    assertEquals(3_000, first.size());
    for (int i = 0; i < first.size(); i++) {
      assertArrayEquals(bytes(first.get(i)), bytes(again.get(i)), "event " + i);
    }
    assertEquals(3_000, slow.size());
    for (int i = 0; i < slow.size(); i++) {
      assertArrayEquals(bytes(first.get(i)), bytes(slow.get(i)), "rate-limited event " + i);
    }
    assertTrue(first.stream().anyMatch(e -> e.containsKey("lsid")), "some events are in transactions");
    assertNotEquals(ResumeToken.ofEvent(first.get(0)),
        ResumeToken.ofEvent(drain(GeneratorUri.parse(URI.replace("seed=7", "seed=8")).newStream(Duration.ofMillis(1)),
            BEGINNING).get(0)), "another seed, another stream");
  }

  @Test
  void clusterTimesAreTheStartPlusOneMillisecondPerEventAndIgnoreTheWallClock() throws Exception {
    GeneratorUri uri = GeneratorUri.parse("generator:demo?events=2500&rate=0&transactions=0&start=2026-01-01T00:00:00Z");
    List<RawBsonDocument> events = drain(uri.newStream(Duration.ofMillis(1)), BEGINNING);
    long start = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond();
    for (int i = 0; i < events.size(); i++) {
      long ms = i + 1;
      BsonTimestamp time = events.get(i).getTimestamp("clusterTime");
      assertEquals(start + ms / 1000, time.getTime() & 0xFFFFFFFFL, "event " + i);
      assertEquals(ms < 1000 ? ms : ms % 1000 + 1, time.getInc(), "event " + i);
      assertEquals(start * 1000 + ms, events.get(i).getDateTime("wallTime").getValue(), "event " + i);
    }
  }

  @Test
  void aNewStreamOpenedAfterAnyTokenContinuesWithExactlyTheEventsAfterIt() throws Exception {
    GeneratorUri uri = GeneratorUri.parse(URI);
    List<RawBsonDocument> all = drain(uri.newStream(Duration.ofMillis(1)), BEGINNING);
    for (int i = 0; i < all.size(); i += 97) {
      ResumeToken token = ResumeToken.ofEvent(all.get(i));
      List<RawBsonDocument> rest = drain(uri.newStream(Duration.ofMillis(1)), StreamPosition.after(token));
      assertEquals(all.size() - i - 1, rest.size(), "after event " + i);
      for (int j = 0; j < rest.size(); j++) {
        assertArrayEquals(bytes(all.get(i + 1 + j)), bytes(rest.get(j)), "event " + (i + 1 + j) + " after " + i);
      }
    }
    // After the last event: nothing more, and the idle token is after it.
    ChangeStreamCursor atEnd = uri.newStream(Duration.ofMillis(1))
        .open(StreamPosition.after(ResumeToken.ofEvent(all.get(all.size() - 1))));
    assertNull(atEnd.tryNext());
    assertTrue(atEnd.postBatchResumeToken().isAfter(ResumeToken.ofEvent(all.get(all.size() - 1))));
  }

  @Test
  void anIdleTokenOfOneProcessIsWhereAnotherContinues() throws Exception {
    GeneratorUri uri = GeneratorUri.parse(URI.replace("events=3000", "events=0").replace("rate=0", "rate=100000"));
    GeneratedChangeStream first = uri.newStream(Duration.ZERO);
    List<RawBsonDocument> seen = new ArrayList<>();
    ResumeToken idle = null;
    ChangeStreamCursor cursor = first.open(BEGINNING);
    while (idle == null || seen.size() < 50) {
      RawBsonDocument event = cursor.tryNext();
      if (event != null) {
        seen.add(event);
        idle = null;
      } else if (!seen.isEmpty()) {
        idle = cursor.postBatchResumeToken();
      }
    }
    RawBsonDocument afterIdle = cursor.tryNext();
    while (afterIdle == null) {
      afterIdle = cursor.tryNext();
    }
    assertTrue(idle.isAfter(ResumeToken.ofEvent(seen.get(seen.size() - 1))));
    RawBsonDocument elsewhere = uri.newStream(Duration.ZERO).open(StreamPosition.after(idle)).tryNext();
    assertArrayEquals(bytes(afterIdle), bytes(elsewhere));
  }

  @Test
  void theFinalStateIsWhatTheInitialDocumentsAndEveryEventMake() throws Exception {
    GeneratorUri uri = GeneratorUri.parse(URI);
    Map<Namespace, Map<BsonValue, BsonDocument>> applied = new HashMap<>();
    uri.initialCollections().documents().forEach((ns, documents) -> documents.values().forEach(
        document -> applied.computeIfAbsent(ns, n -> new HashMap<>()).put(document.get("_id"), decoded(document))));
    assertEquals(40, applied.get(new Namespace("demo", "orders")).size());
    List<RawBsonDocument> events = drain(uri.newStream(Duration.ofMillis(1)), BEGINNING);
    for (RawBsonDocument raw : events) {
      BsonDocument event = decoded(raw);
      BsonDocument ns = event.getDocument("ns");
      Map<BsonValue, BsonDocument> collection = applied.computeIfAbsent(
          new Namespace(ns.getString("db").getValue(), ns.getString("coll").getValue()), n -> new HashMap<>());
      BsonValue id = event.getDocument("documentKey").get("_id");
      if (event.getString("operationType").getValue().equals("delete")) {
        collection.remove(id);
      } else {
        collection.put(id, event.getDocument("fullDocument"));
      }
    }
    GeneratorUri.FinalState state = uri.finalState();
    Map<Namespace, Map<BsonValue, BsonDocument>> expected = new HashMap<>();
    state.documents().forEach((ns, documents) -> {
      Map<BsonValue, BsonDocument> decodedDocuments = new HashMap<>();
      documents.forEach((id, document) -> decodedDocuments.put(id, decoded(document)));
      expected.put(ns, decodedDocuments);
    });
    assertEquals(expected, applied);
    assertEquals(3_000, state.events());
    assertEquals(ResumeToken.ofEvent(events.get(events.size() - 1)), state.lastEventToken());
    assertThrows(IllegalStateException.class, () -> GeneratorUri.parse("generator:demo").finalState());
  }

  @Test
  void sampleDocumentsAreTheSameInEveryProcess() {
    // No part of an ObjectId comes from this JVM: another process writes the same bytes.
    assertEquals("6553f105" + "6d63646300" + "000005", SampleDocuments.medium(5).getObjectId("_id").getValue().toHexString());
    assertEquals("5f5e1000" + "6d63646300" + "000005",
        SampleDocuments.medium(5).getDocument("customer").getObjectId("id").getValue().toHexString());
  }

  static List<RawBsonDocument> drain(GeneratedChangeStream stream, StreamPosition from) throws Exception {
    ChangeStreamCursor cursor = stream.open(from);
    List<RawBsonDocument> events = new ArrayList<>();
    for (RawBsonDocument event = cursor.tryNext(); event != null; event = cursor.tryNext()) {
      events.add(event);
    }
    return events;
  }

  /** Every event of a bounded stream, read while it goes idle between them, its idle token asked for. */
  private static List<RawBsonDocument> drainThroughIdleTokens(GeneratedChangeStream stream) throws Exception {
    ChangeStreamCursor cursor = stream.open(BEGINNING);
    List<RawBsonDocument> events = new ArrayList<>();
    int idle = 0;
    while (!stream.exhausted() || events.size() < stream.eventsGenerated()) {
      RawBsonDocument event = cursor.tryNext();
      if (event == null) {
        cursor.postBatchResumeToken(); // null while a transaction is half sent
        idle++;
      } else {
        events.add(event);
      }
    }
    assertTrue(idle > 0, "the stream went idle between events");
    return events;
  }

  static byte[] bytes(RawBsonDocument event) {
    ByteBuffer buffer = event.getByteBuffer().asNIO();
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }

  private static BsonDocument decoded(BsonDocument document) {
    return new RawBsonDocument(document, new BsonDocumentCodec()).decode(new BsonDocumentCodec());
  }
}
