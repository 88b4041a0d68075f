package io.mongocdc.devtools.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.snapshot.BsonIdOrder;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.IdTypeBracket;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.StreamPosition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.Test;

class GeneratedCollectionsTest {

  private static final Clock FIXED = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

  @Test
  void readsSeeTheStateAfterEveryEventGeneratedSoFarNotTheStateBeforeTheFirst() throws Exception {
    GeneratedChangeStream stream = new GeneratedChangeStream(LoadProfile.demo(5, 0, 2_000), FIXED, Duration.ofMillis(1));
    stream.prefill(100);
    GeneratedCollections collections = new GeneratedCollections(stream, 5);
    Map<String, String> before = read(collections, "orders");
    assertEquals(keyed(stream.expectedState().get(new Namespace("demo", "orders"))), before);

    ChangeStreamCursor cursor = stream.open(StreamPosition.atOperationTime(new BsonTimestamp(0, 0)));
    for (int i = 0; i < 1_500; i++) {
      cursor.tryNext();
    }
    Map<String, String> after = read(collections, "orders");
    assertNotEquals(before, after, "the events changed the collection");
    assertEquals(keyed(stream.expectedState().get(new Namespace("demo", "orders"))), after);
    assertEquals(after.size(), collections.estimatedCount("orders"));
  }

  @Test
  void aKeySpaceOfTenMillionWithAMillionDocumentsIsServedStoringOnlyTheKeysEventsChanged() {
    GeneratorUri uri = GeneratorUri.parse(
        "generator:demo?seed=9&events=5000&rate=0&initialDocuments=1000000&keySpace=10000000");
    GeneratedCollections initial = uri.initialCollections();
    assertEquals(0, initial.storedKeys());
    assertEquals(1_000_000, initial.estimatedCount("products"));

    GeneratorUri.FinalState state = uri.finalState();
    GeneratedCollections collections = state.collections();
    // Bounded by the events, whatever the collections hold: no document is stored.
    long stored = collections.storedKeys();
    assertTrue(stored > 0 && stored <= 5_000, "stored keys " + stored);
    long documents = 0;
    for (String collection : collections.collectionNames()) {
      documents += collections.estimatedCount(collection);
    }
    assertTrue(documents > 3_000_000 && documents < 3_005_000, "documents " + documents);

    // A partition deep in the collection is read from where it starts, in _id order.
    List<RawBsonDocument> products = readAll(collections, "products",
        IdRange.of(IdTypeBracket.NUMBER, new BsonInt32(700_000), new BsonInt32(700_100)));
    assertTrue(products.size() > 90, "products " + products.size());
    List<Integer> ids = products.stream().map(d -> d.getInt32("_id").getValue()).toList();
    assertEquals(ids.stream().sorted().toList(), ids);
    assertTrue(ids.get(0) >= 700_000 && ids.get(ids.size() - 1) < 700_100, "ids " + ids);
    List<RawBsonDocument> users = readAll(collections, "users",
        IdRange.of(IdTypeBracket.STRING, new BsonString("user-99999"), new BsonString("user-999991")));
    assertEquals(List.of("user-99999", "user-999990"), users.stream().map(d -> d.getString("_id").getValue()).toList());
    assertEquals(products.get(5), collections.findByIds("products", List.of(products.get(5).get("_id"))).get(0));
    assertEquals(stored, collections.storedKeys(), "reading stores nothing");
  }

  /** Many changes, and keys no event touches, which only the copy brings. */
  @Test
  void whatTheCopyReadsPlusWhatTheStreamChangesIsTheFinalState() throws Exception {
    GeneratorUri uri = GeneratorUri.parse(
        "generator:demo?seed=11&events=4000&rate=0&initialDocuments=2000&keySpace=3000&transactions=20");
    Map<Namespace, Map<BsonValue, BsonDocument>> expected = decoded(uri.finalState().documents());

    // A worker copies the collections as they were before the first event, then applies every event.
    Map<Namespace, Map<BsonValue, BsonDocument>> worker = copy(uri.initialCollections(), uri, () -> {});
    List<RawBsonDocument> events = new ArrayList<>();
    ChangeStreamCursor all = uri.newStream(Duration.ofMillis(1)).open(BEGINNING);
    for (RawBsonDocument event = all.tryNext(); event != null; event = all.tryNext()) {
      events.add(event);
    }
    assertEquals(4_000, events.size());
    events.forEach(event -> apply(worker, event));
    assertEquals(expected, worker);

    // dev copies the collections while the generator runs ahead between the copy's batches; the
    // stream from the start overwrites what the copy saw.
    GeneratedChangeStream stream = uri.newStream(Duration.ofMillis(1));
    ChangeStreamCursor running = stream.open(BEGINNING);
    List<RawBsonDocument> streamed = new ArrayList<>();
    Map<Namespace, Map<BsonValue, BsonDocument>> dev = copy(stream.collections(uri.seed()), uri, () -> {
      for (int i = 0; i < 2; i++) {
        try {
          RawBsonDocument event = running.tryNext();
          if (event != null) {
            streamed.add(event);
          }
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
      }
    });
    assertTrue(streamed.size() > 500 && streamed.size() < 4_000, "events during the copy: " + streamed.size());
    for (RawBsonDocument event = running.tryNext(); event != null; event = running.tryNext()) {
      streamed.add(event);
    }
    assertEquals(events, streamed);
    streamed.forEach(event -> apply(dev, event));
    assertEquals(expected, dev);
  }

  private static final StreamPosition BEGINNING = StreamPosition.atOperationTime(new BsonTimestamp(0, 0));

  /** Copies every collection in partitions split at sampled ids, running {@code betweenBatches} after every ten documents. */
  private static Map<Namespace, Map<BsonValue, BsonDocument>> copy(GeneratedCollections source, GeneratorUri uri,
      Runnable betweenBatches) {
    Map<Namespace, Map<BsonValue, BsonDocument>> copied = new HashMap<>();
    for (Namespace ns : uri.namespaces()) {
      Map<BsonValue, BsonDocument> documents = new HashMap<>();
      copied.put(ns, documents);
      List<BsonValue> splits = source.sampleIds(ns.collection(), 5).stream().sorted(BsonIdOrder.INSTANCE).toList();
      List<IdRange> ranges = new ArrayList<>();
      IdTypeBracket bracket = IdTypeBracket.of(splits.get(0));
      ranges.add(new IdRange(null, null, null, List.of(bracket)));
      for (int i = 0; i <= splits.size(); i++) {
        ranges.add(IdRange.of(bracket, i == 0 ? null : splits.get(i - 1), i == splits.size() ? null : splits.get(i)));
      }
      int read = 0;
      for (IdRange range : ranges) {
        try (DocumentCursor cursor = source.open(ns.collection(), range, new BsonDocument(), 10)) {
          for (RawBsonDocument d = cursor.next(); d != null; d = cursor.next()) {
            documents.put(d.get("_id"), d.decode(new BsonDocumentCodec()));
            if (++read % 10 == 0) {
              betweenBatches.run();
            }
          }
        }
      }
    }
    return copied;
  }

  private static void apply(Map<Namespace, Map<BsonValue, BsonDocument>> destination, RawBsonDocument raw) {
    BsonDocument event = raw.decode(new BsonDocumentCodec());
    BsonDocument ns = event.getDocument("ns");
    Map<BsonValue, BsonDocument> collection = destination.computeIfAbsent(
        new Namespace(ns.getString("db").getValue(), ns.getString("coll").getValue()), n -> new HashMap<>());
    BsonValue id = event.getDocument("documentKey").get("_id");
    if (event.getString("operationType").getValue().equals("delete")) {
      collection.remove(id);
    } else {
      collection.put(id, event.getDocument("fullDocument"));
    }
  }

  private static Map<Namespace, Map<BsonValue, BsonDocument>> decoded(Map<Namespace, Map<BsonValue, BsonDocument>> state) {
    Map<Namespace, Map<BsonValue, BsonDocument>> decoded = new HashMap<>();
    state.forEach((ns, documents) -> {
      Map<BsonValue, BsonDocument> plain = new HashMap<>();
      documents.forEach((id, d) -> plain.put(id, new RawBsonDocument(d, new BsonDocumentCodec())
          .decode(new BsonDocumentCodec())));
      decoded.put(ns, plain);
    });
    return decoded;
  }

  private static List<RawBsonDocument> readAll(GeneratedCollections collections, String collection, IdRange range) {
    List<RawBsonDocument> documents = new ArrayList<>();
    try (DocumentCursor cursor = collections.open(collection, range, new BsonDocument(), 30)) {
      for (RawBsonDocument d = cursor.next(); d != null; d = cursor.next()) {
        documents.add(d);
      }
    }
    return documents;
  }

  private static Map<String, String> read(GeneratedCollections collections, String collection) {
    Map<String, String> documents = new TreeMap<>();
    IdKeyRenderer keys = new IdKeyRenderer();
    try (DocumentCursor cursor = collections.open(collection, IdRange.whole(), new BsonDocument(), 100)) {
      for (RawBsonDocument d = cursor.next(); d != null; d = cursor.next()) {
        documents.put(keys.renderIdOf(d), d.decode(new BsonDocumentCodec()).toJson());
      }
    }
    return documents;
  }

  private static Map<String, String> keyed(Map<BsonValue, BsonDocument> state) {
    Map<String, String> documents = new TreeMap<>();
    IdKeyRenderer keys = new IdKeyRenderer();
    state.values().forEach(d -> documents.put(keys.render(d.get("_id")), d.toJson()));
    return documents;
  }
}
