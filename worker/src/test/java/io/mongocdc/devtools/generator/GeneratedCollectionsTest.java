package io.mongocdc.devtools.generator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.StreamPosition;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import org.bson.BsonDocument;
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
