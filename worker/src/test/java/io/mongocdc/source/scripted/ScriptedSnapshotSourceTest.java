package io.mongocdc.source.scripted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.IdTypeBracket;
import io.mongocdc.snapshot.PartitionPlanner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ScriptedSnapshotSourceTest {

  private final ExecutorService reader = Executors.newSingleThreadExecutor();

  @AfterEach
  void stopReader() throws InterruptedException {
    reader.shutdownNow();
    assertTrue(reader.awaitTermination(10, TimeUnit.SECONDS));
  }

  private static BsonDocument doc(BsonValue id, int value) {
    return new BsonDocument("_id", id).append("v", new BsonInt32(value));
  }

  private static List<BsonValue> readAll(DocumentCursor cursor) {
    List<BsonValue> ids = new ArrayList<>();
    try (cursor) {
      for (RawBsonDocument d = cursor.next(); d != null; d = cursor.next()) {
        ids.add(d.get("_id"));
      }
    }
    return ids;
  }

  /** 300 documents with ObjectId, numeric and string ids. */
  private static ScriptedSnapshotSource mixedCollection() {
    ScriptedSnapshotSource source = new ScriptedSnapshotSource(1);
    for (int i = 0; i < 100; i++) {
      source.put("c", doc(new BsonObjectId(new ObjectId(String.format("%024x", i * 7919L))), i));
      source.put("c", doc(i % 2 == 0 ? new BsonInt64(i) : new BsonDouble(i + 0.5), i));
      source.put("c", doc(new BsonString("key-" + i), i));
    }
    return source;
  }

  @Test
  void readingEveryPlannedPartitionYieldsEachDocumentExactlyOnce() {
    ScriptedSnapshotSource source = mixedCollection();
    long count = source.estimatedCount("c");
    List<IdRange> plan = PartitionPlanner.plan(count,
        source.sampleIds("c", PartitionPlanner.sampleSizeFor(count, 25)), 25);
    assertTrue(plan.size() >= 10, "a real split: " + plan.size());

    Map<BsonValue, Integer> seen = new HashMap<>();
    for (IdRange range : plan) {
      readAll(source.open("c", range, new BsonDocument(), 7)).forEach(id -> seen.merge(id, 1, Integer::sum));
      assertEquals(1, source.openCount("c", range));
    }

    assertEquals(300, seen.size());
    assertTrue(seen.values().stream().allMatch(n -> n == 1), "read twice: " + seen);
    assertEquals(0, source.openCursorCount());
  }

  @Test
  void equalIdsOfDifferentTypesAreOneDocument() {
    ScriptedSnapshotSource source = new ScriptedSnapshotSource();
    source.put("c", doc(new BsonInt32(1), 1)).put("c", doc(new BsonDouble(1.0), 2)).put("c", doc(new BsonInt32(2), 3));
    assertEquals(2, source.estimatedCount("c"));
    assertEquals(new BsonDouble(1.0), source.documents("c").get(0).get("_id"));
    assertEquals(2, source.documents("c").get(0).getInt32("v").getValue());
    assertTrue(source.delete("c", new BsonInt64(1)));
    assertEquals(List.of(new BsonInt32(2)), source.documents("c").stream().map(d -> d.get("_id")).toList());
  }

  @Test
  void openAppliesTheRangeAndTheFilter() {
    ScriptedSnapshotSource source = mixedCollection();
    IdRange numbers = IdRange.of(IdTypeBracket.NUMBER, new BsonInt32(10), new BsonInt32(20));
    List<BsonValue> ids = readAll(source.open("c", numbers, BsonDocument.parse("{v: {$gte: 15}}"), 0));
    assertEquals(List.of(new BsonDouble(15.5), new BsonInt64(16), new BsonDouble(17.5), new BsonInt64(18),
        new BsonDouble(19.5)), ids);
    assertEquals(List.of(), readAll(source.open("missing", IdRange.whole(), new BsonDocument(), 10)));
    assertThrows(IllegalArgumentException.class,
        () -> source.open("c", IdRange.whole(), BsonDocument.parse("{$where: 'true'}"), 10));
  }

  @Test
  void changesAheadOfTheCursorAreSeenAndBehindItAreNot() {
    ScriptedSnapshotSource source = new ScriptedSnapshotSource();
    for (int i = 0; i < 10; i++) {
      source.put("c", doc(new BsonInt32(i * 10), 0));
    }
    DocumentCursor cursor = source.open("c", IdRange.whole(), new BsonDocument(), 3);
    List<BsonValue> ids = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      ids.add(cursor.next().get("_id"));
    }
    // Between batches: one behind, one ahead, one ahead deleted.
    source.put("c", doc(new BsonInt32(5), 0));
    source.put("c", doc(new BsonInt32(55), 0));
    source.delete("c", new BsonInt32(60));
    ids.addAll(readAll(cursor));

    assertEquals(List.of(0, 10, 20, 30, 40, 50, 55, 70, 80, 90),
        ids.stream().map(id -> id.asInt32().getValue()).toList());
  }

  @Test
  void anInjectedFailureHitsOneOpenAtItsNthCall() {
    ScriptedSnapshotSource source = mixedCollection();
    IdRange strings = IdRange.of(IdTypeBracket.STRING, null, null);
    RuntimeException crash = new IllegalStateException("worker crashed");
    source.failAt("c", strings, 40, crash);
    source.failAt("c", null, 0, new IllegalStateException("cannot open"));

    DocumentCursor first = source.open("c", strings, new BsonDocument(), 16);
    for (int i = 0; i < 39; i++) {
      first.next();
    }
    assertSame(crash, assertThrows(IllegalStateException.class, first::next));
    first.close();
    assertEquals("cannot open",
        assertThrows(IllegalStateException.class, () -> source.open("c", strings, new BsonDocument(), 16)).getMessage());

    assertEquals(100, readAll(source.open("c", strings, new BsonDocument(), 16)).size());
    assertEquals(3, source.openCount("c", strings));
    assertEquals(Map.of(strings, 3), source.openCounts("c"));
  }

  @Test
  void aGateStopsACopyMidPartitionUntilReleased() throws Exception {
    ScriptedSnapshotSource source = mixedCollection();
    IdRange numbers = IdRange.of(IdTypeBracket.NUMBER, null, null);
    Gate gate = new Gate();
    source.gateAt("c", numbers, 51, gate);

    Future<List<BsonValue>> copy = reader.submit(() -> readAll(source.open("c", numbers, new BsonDocument(), 10)));
    assertTrue(gate.awaitReached(Duration.ofSeconds(10)));
    source.delete("c", new BsonInt64(98));
    source.put("c", doc(new BsonInt32(1_000), 0));
    gate.release();

    List<BsonValue> ids = copy.get(10, TimeUnit.SECONDS);
    assertEquals(100, ids.size());
    assertTrue(ids.contains(new BsonInt32(1_000)));
    assertTrue(!ids.contains(new BsonInt64(98)));
  }

  @Test
  void closingACursorWaitingAtAGateFailsTheReadInsteadOfEndingIt() throws Exception {
    ScriptedSnapshotSource source = mixedCollection();
    Gate gate = new Gate();
    source.gateAt("c", IdRange.whole(), 5, gate);
    DocumentCursor cursor = source.open("c", IdRange.whole(), new BsonDocument(), 10);
    CompletableFuture<Boolean> interruptFlagAfter = new CompletableFuture<>();

    Future<RawBsonDocument> blocked = reader.submit(() -> {
      for (int i = 0; i < 4; i++) {
        cursor.next();
      }
      try {
        return cursor.next();
      } finally {
        interruptFlagAfter.complete(Thread.currentThread().isInterrupted());
      }
    });
    assertTrue(gate.awaitReached(Duration.ofSeconds(10)));
    cursor.close();

    ExecutionException failure = assertThrows(ExecutionException.class, () -> blocked.get(10, TimeUnit.SECONDS));
    assertTrue(failure.getCause() instanceof IllegalStateException, failure.getCause().toString());
    assertEquals(false, interruptFlagAfter.get(10, TimeUnit.SECONDS), "the close's interrupt does not leak");
    assertThrows(IllegalStateException.class, cursor::next);
    assertEquals(0, source.openCursorCount());
  }

  @Test
  void samplesAreRepeatableForASeedAndDifferAcrossSeeds() {
    ScriptedSnapshotSource a = mixedCollection();
    ScriptedSnapshotSource b = mixedCollection();
    ScriptedSnapshotSource other = new ScriptedSnapshotSource(2).putAll("c", a.documents("c"));

    assertEquals(a.sampleIds("c", 50), b.sampleIds("c", 50));
    assertEquals(a.sampleIds("c", 50), a.sampleIds("c", 50));
    assertNotEquals(a.sampleIds("c", 50), other.sampleIds("c", 50));
    assertEquals(300, a.sampleIds("c", 1_000).stream().distinct().count());
    assertEquals(List.of(), a.sampleIds("c", 0));
    assertEquals(List.of(), a.sampleIds("missing", 10));
  }

  @Test
  void collectionsAreListedSortedAndEstimatesCanBeStale() {
    ScriptedSnapshotSource source = mixedCollection().createCollection("b").createCollection("a");
    assertEquals(List.of("a", "b", "c"), source.collectionNames());
    source.estimatedCountOverride("c", 0L);
    assertEquals(0, source.estimatedCount("c"));
    assertEquals(300, readAll(source.open("c", IdRange.whole(), new BsonDocument(), 0)).size());
    source.estimatedCountOverride("c", null);
    assertEquals(300, source.estimatedCount("c"));
    assertNull(source.open("a", IdRange.whole(), new BsonDocument(), 1).next());
  }
}
