package io.mongocdc.devtools.generator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.pipeline.DecodedBytesBudget;
import io.mongocdc.pipeline.ProgressListener;
import io.mongocdc.pipeline.PullRecords;
import io.mongocdc.pipeline.PullResult;
import io.mongocdc.pipeline.PullSettings;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
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

class GeneratedChangeStreamTest {

  private static final Clock FIXED = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);
  private static final StreamPosition BEGINNING = StreamPosition.atOperationTime(new BsonTimestamp(0, 0));

  private static GeneratedChangeStream generator(long seed, long events, int retained) {
    LoadProfile demo = LoadProfile.demo(seed, 0, events);
    LoadProfile profile = new LoadProfile(demo.seed(), demo.collections(), 200, 0, events, retained, demo.mix(), 10, 0);
    return new GeneratedChangeStream(profile, FIXED, Duration.ofMillis(1));
  }

  private static List<String> describe(GeneratedChangeStream stream, int count) throws Exception {
    ChangeStreamCursor cursor = stream.open(BEGINNING);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      RawBsonDocument event = cursor.tryNext();
      BsonDocument copy = event.decode(new BsonDocumentCodec());
      copy.remove("_id");
      copy.remove("clusterTime");
      copy.remove("wallTime");
      copy.remove("lsid");
      out.add(copy.toJson());
    }
    return out;
  }

  @Test
  void theSameSeedMakesTheSameEvents() throws Exception {
    assertEquals(describe(generator(7, 500, 1000), 500), describe(generator(7, 500, 1000), 500));
    assertTrue(!describe(generator(7, 50, 1000), 50).equals(describe(generator(8, 50, 1000), 50)));
  }

  @Test
  void aPipelineFedByItEndsWithTheModelsState() throws Exception {
    GeneratedChangeStream stream = generator(11, 3_000, 10_000);
    ApplyingSink sink = new ApplyingSink();
    PullRecords pullRecords = new PullRecords("gen", stream,
        new ChangeEventDecoder(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(), DestinationTableResolver.sourceName(),
            ns -> false, ColumnProjections.NONE),
        MirrorSettings.defaults().toBuilder().decodeWorkers(2).batchSize(1_000).idleTimeoutSeconds(1).build(),
        PullSettings.defaults(), System::nanoTime, DecodedBytesBudget.ofDefaultSize());

    StreamPosition checkpoint = BEGINNING;
    for (int batch = 0; batch < 5; batch++) {
      PullResult result = pullRecords.pull(checkpoint, sink, ProgressListener.none());
      checkpoint = result.checkpoint();
      if (result.eventsRead() == 0) {
        break; // the stream is drained: another batch would only wait out its idle timeout
      }
    }

    assertTrue(stream.exhausted());
    assertEquals(expectedRows(stream.expectedState()), sink.rows);
    assertTrue(sink.operations.keySet().containsAll(List.of(Operation.values())), "every operation appears");
  }

  @Test
  void reopensInsideItsWindowAndReportsHistoryLostBeforeIt() throws Exception {
    GeneratedChangeStream stream = generator(3, 100, 10);
    ChangeStreamCursor cursor = stream.open(BEGINNING);
    List<RawBsonDocument> seen = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      seen.add(cursor.tryNext());
    }
    assertNull(cursor.tryNext(), "exhausted");

    ChangeStreamCursor reopened = stream.open(StreamPosition.after(io.mongocdc.source.ResumeToken.fromDocument(
        seen.get(94).getDocument("_id"))));
    assertEquals(seen.get(95), reopened.tryNext());

    assertThrows(ChangeStreamHistoryLostException.class, () -> stream.open(StreamPosition.after(
        io.mongocdc.source.ResumeToken.fromDocument(seen.get(10).getDocument("_id")))));
  }

  private static List<RawBsonDocument> drain(GeneratedChangeStream stream, StreamPosition from) throws Exception {
    ChangeStreamCursor cursor = stream.open(from);
    List<RawBsonDocument> events = new ArrayList<>();
    for (RawBsonDocument event = cursor.tryNext(); event != null; event = cursor.tryNext()) {
      events.add(event);
    }
    return events;
  }

  private static byte[] bytes(RawBsonDocument event) {
    ByteBuffer buffer = event.getByteBuffer().asNIO();
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }

  @Test
  void theSameSeedMakesByteIdenticalEventsAndDocuments() throws Exception {
    GeneratedChangeStream first = generator(21, 5_000, 10_000);
    GeneratedChangeStream second = generator(21, 5_000, 10_000);
    first.prefill(20);
    second.prefill(20);
    assertEquals(first.expectedState(), second.expectedState());
    List<RawBsonDocument> a = drain(first, BEGINNING);
    List<RawBsonDocument> b = drain(second, BEGINNING);
    assertEquals(5_000, a.size());
    for (int i = 0; i < a.size(); i++) {
      assertArrayEquals(bytes(a.get(i)), bytes(b.get(i)), "event " + i);
    }
    assertTrue(a.stream().anyMatch(e -> e.containsKey("lsid")), "some events are in transactions");
    assertEquals(first.expectedState(), second.expectedState());
  }

  @Test
  void reopeningAfterAnyRetainedEventYieldsExactlyTheEventsAfterIt() throws Exception {
    GeneratedChangeStream stream = generator(5, 2_000, 300);
    List<RawBsonDocument> all = drain(stream, BEGINNING);
    for (int i = 1_699; i < 2_000; i++) {
      List<RawBsonDocument> rest = drain(stream, StreamPosition.after(ResumeToken.ofEvent(all.get(i))));
      assertEquals(all.subList(i + 1, 2_000), rest, "after event " + i);
    }
    BsonTimestamp time = all.get(1_800).getTimestamp("clusterTime");
    List<RawBsonDocument> atTime = drain(stream, StreamPosition.atOperationTime(time));
    assertEquals(time, atTime.get(0).getTimestamp("clusterTime"));
    assertEquals(all.get(1_999), atTime.get(atTime.size() - 1));
    assertEquals(ResumeToken.ofEvent(all.get(1_999)), stream.lastEventToken());

    ChangeStreamHistoryLostException lost = assertThrows(ChangeStreamHistoryLostException.class,
        () -> stream.open(StreamPosition.after(ResumeToken.ofEvent(all.get(1_698)))));
    assertEquals(286, lost.serverErrorCode());
  }

  @Test
  void aCursorThatFellOutOfTheWindowReportsHistoryLost() throws Exception {
    GeneratedChangeStream stream = generator(5, 1_000, 100);
    ChangeStreamCursor behind = stream.open(BEGINNING);
    behind.tryNext();
    drain(stream, BEGINNING);
    ChangeStreamHistoryLostException lost = assertThrows(ChangeStreamHistoryLostException.class, behind::tryNext);
    assertEquals(286, lost.serverErrorCode());
  }

  @Test
  void theExpectedStateIsWhatApplyingTheEventsGives() throws Exception {
    GeneratedChangeStream stream = generator(13, 20_000, 20_000);
    Map<Namespace, Map<BsonValue, BsonDocument>> applied = new HashMap<>();
    stream.prefill(150);
    stream.expectedState().forEach((ns, documents) -> documents.values().forEach(
        document -> applied.computeIfAbsent(ns, n -> new HashMap<>()).put(document.get("_id"), decoded(document))));
    Map<String, Integer> steadyState = new HashMap<>();
    List<RawBsonDocument> events = drain(stream, BEGINNING);
    for (int i = 0; i < events.size(); i++) {
      BsonDocument event = decoded(events.get(i));
      BsonDocument ns = event.getDocument("ns");
      Map<BsonValue, BsonDocument> collection = applied.computeIfAbsent(
          new Namespace(ns.getString("db").getValue(), ns.getString("coll").getValue()), n -> new HashMap<>());
      BsonValue id = event.getDocument("documentKey").get("_id");
      String type = event.getString("operationType").getValue();
      if (type.equals("delete")) {
        assertTrue(collection.remove(id) != null, "deletes an existing document");
      } else {
        assertEquals(id, event.getDocument("fullDocument").get("_id"));
        collection.put(id, event.getDocument("fullDocument"));
      }
      if (i >= 10_000) {
        steadyState.merge(type, 1, Integer::sum);
      }
    }
    Map<Namespace, Map<BsonValue, BsonDocument>> expected = new HashMap<>();
    stream.expectedState().forEach((ns, documents) -> {
      Map<BsonValue, BsonDocument> decodedDocuments = new HashMap<>();
      documents.forEach((id, document) -> decodedDocuments.put(id, decoded(document)));
      expected.put(ns, decodedDocuments);
    });
    assertEquals(expected, applied);
    // With the key space full, inserts only refill what deletes removed: updates dominate.
    assertTrue(steadyState.get("update") > 6_000, "steady state " + steadyState);
    assertTrue(steadyState.get("insert") > 500 && steadyState.get("insert") < 1_500, "steady state " + steadyState);
  }

  private static BsonDocument decoded(BsonDocument document) {
    return new RawBsonDocument(document, new BsonDocumentCodec()).decode(new BsonDocumentCodec());
  }

  private static Map<String, String> expectedRows(Map<Namespace, Map<BsonValue, BsonDocument>> state) {
    Map<String, String> rows = new HashMap<>();
    IdKeyRenderer keys = new IdKeyRenderer();
    TranscodingJsonRenderer renderer = TranscodingJsonRenderer.relaxed();
    state.forEach((ns, docs) -> docs.forEach((id, doc) ->
        rows.put(ns.fullName() + "/" + keys.render(id), renderer.render(new RawBsonDocument(doc, new BsonDocumentCodec())))));
    return rows;
  }

  /** Applies records to an in-memory table, as the destination would. */
  private static final class ApplyingSink implements RecordSink {
    final Map<String, String> rows = new HashMap<>();
    final Map<Operation, Integer> operations = new HashMap<>();

    @Override
    public void write(List<ChangeRecord> records) {
      for (ChangeRecord record : records) {
        operations.merge(record.operation(), 1, Integer::sum);
        String key = record.table() + "/" + record.key();
        if (record.operation() == Operation.DELETE) {
          rows.remove(key);
        } else if (record.document() != null) {
          rows.put(key, record.document());
        }
      }
    }

    @Override
    public void commit() {}
  }
}
