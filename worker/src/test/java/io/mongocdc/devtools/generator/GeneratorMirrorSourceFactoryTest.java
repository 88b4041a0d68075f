package io.mongocdc.devtools.generator;

import static io.mongocdc.devtools.generator.GeneratorUriTest.bytes;
import static io.mongocdc.devtools.generator.GeneratorUriTest.drain;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.wiring.SourcesByPeerScheme;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/** A worker's source for mirrors of a generator peer, and how a worker picks it by the peer's scheme. */
class GeneratorMirrorSourceFactoryTest {

  private static final String URI = "generator:demo?seed=3&events=6000&rate=0&initialDocuments=40&keySpace=500";
  private static final StreamPosition BEGINNING = StreamPosition.atOperationTime(new BsonTimestamp(0, 0));

  private final PeerRegistry peers = new ConfiguredPeerRegistry(Map.of("gen", URI, "bad-gen", "generator:demo?seed=x",
      "mongo", "mongodb://db1.example/?replicaSet=rs0"), Map.of());
  private final GeneratorMirrorSourceFactory source = new GeneratorMirrorSourceFactory(peers);

  private static MirrorConfig mirror(String name, String peer, String database, List<String> collections) {
    return new MirrorConfig(name, peer, "pg", database, collections, "public", MirrorSettings.defaults());
  }

  private static MirrorConfig mirror(String name) {
    return mirror(name, "gen", "demo", List.of("orders", "users", "products"));
  }

  @Test
  void aMirrorReadsTheGeneratorsDatabaseAndAllItsCollections() {
    source.validate(mirror("m"));
    source.validate(mirror("m", "gen", "demo", List.of()));
    source.validate(mirror("m", "gen", "demo", List.of("products", "orders", "users")));
    assertEquals("the generator peer gen makes database demo, not shop; create the mirror with --database demo",
        assertThrows(InvalidMirrorConfigurationException.class,
            () -> source.validate(mirror("m", "gen", "shop", List.of()))).getMessage());
    assertTrue(assertThrows(InvalidMirrorConfigurationException.class,
        () -> source.validate(mirror("m", "gen", "demo", List.of("orders")))).getMessage()
        .contains("makes the collections orders, users, products; a mirror of it takes all of them"));
    assertEquals("the generator peer bad-gen's URI generator:demo?seed=x is not usable: seed must be a whole number,"
        + " got 'x'", assertThrows(InvalidMirrorConfigurationException.class,
            () -> source.validate(mirror("m", "bad-gen", "demo", List.of()))).getMessage());
    assertEquals(BEGINNING, source.currentPosition(mirror("m")));
  }

  @Test
  void aGeneratorPeerHoldsItsStreamFromItsStartUpToNowAndAMirrorStartedInsideReadsFromThere() throws Exception {
    // The URI's stream begins at its default start, 2025-01-01T00:00:00Z; event n is n ms later.
    long start = java.time.Instant.parse("2025-01-01T00:00:00Z").getEpochSecond();
    StreamPosition twoSecondsIn = StreamPosition.atOperationTime(new BsonTimestamp((int) start + 2, 0));
    source.requireHistoryHolds(mirror("m"), twoSecondsIn);
    try (ChangeStreamCursor cursor = source.openerFor(mirror("m")).open(twoSecondsIn)) {
      BsonTimestamp first = cursor.tryNext().getTimestamp("clusterTime");
      assertEquals(start + 2, first.getTime(), "the first event read is of the start point's second");
    }

    String before = assertThrows(InvalidMirrorConfigurationException.class, () -> source.requireHistoryHolds(
        mirror("m"), StreamPosition.atOperationTime(new BsonTimestamp((int) start - 60, 0)))).getMessage();
    assertTrue(before.contains("the oldest point it holds is 2025-01-01T00:00:00Z (cluster time " + start + ".0)"),
        before);
    String future = assertThrows(InvalidMirrorConfigurationException.class, () -> source.requireHistoryHolds(
        mirror("m"), StreamPosition.atOperationTime(new BsonTimestamp((int) (System.currentTimeMillis() / 1000) + 3_600,
            0)))).getMessage();
    assertTrue(future.contains("later than the source's time now"), future);
  }

  @Test
  void aRunningGeneratorHoldsWhatItsWindowKeepsAndNamesItsOldestEvent() throws Exception {
    LoadProfile demo = LoadProfile.demo(5, 0, 300);
    LoadProfile smallWindow = new LoadProfile(demo.seed(), demo.collections(), demo.keySpace(), 0, 300, 100,
        demo.mix(), 0, 0);
    GeneratedChangeStream stream = GeneratedChangeStream.replayable(smallWindow, 1_000_000L, Duration.ZERO);
    GeneratorMirrorSourceFactory running = GeneratorMirrorSourceFactory.running(stream, 5);
    MirrorConfig mirror = mirror("dev");
    StreamPosition beginning = StreamPosition.atOperationTime(new BsonTimestamp(1_000, 0));
    running.requireHistoryHolds(mirror, beginning);

    List<RawBsonDocument> all = drain(stream, beginning);
    assertEquals(300, all.size());
    BsonTimestamp oldest = all.get(200).getTimestamp("clusterTime");
    assertEquals(oldest, stream.oldestHeld(), "the window keeps the last 100 events");
    running.requireHistoryHolds(mirror, StreamPosition.after(ResumeToken.ofEvent(all.get(250))));
    String refused = assertThrows(InvalidMirrorConfigurationException.class,
        () -> running.requireHistoryHolds(mirror, StreamPosition.after(ResumeToken.ofEvent(all.get(10))))).getMessage();
    assertTrue(refused.contains("no longer holds the start point the resume token's event at")
        && refused.contains("the oldest point it holds is " + io.mongocdc.ports.StartPointCheck.describe(oldest)),
        refused);
  }

  @Test
  void eachBatchReopensWhereTheLastEndedAndAnOlderPositionIsMadeAgain() throws Exception {
    List<RawBsonDocument> all = drain(GeneratorUri.parse(URI).newStream(Duration.ofMillis(1)), BEGINNING);
    assertEquals(6_000, all.size());
    ChangeStreamOpener stream = source.openerFor(mirror("m"));
    assertSame(stream, source.openerFor(mirror("m")));

    StreamPosition checkpoint = BEGINNING;
    int read = 0;
    for (int batch : new int[] {1_000, 2_500, 2_500}) {
      try (ChangeStreamCursor cursor = stream.open(checkpoint)) {
        for (int i = 0; i < batch; i++, read++) {
          RawBsonDocument event = cursor.tryNext();
          assertArrayEquals(bytes(all.get(read)), bytes(event), "event " + read);
          checkpoint = StreamPosition.after(ResumeToken.ofEvent(event));
        }
      }
    }
    // Far behind the kept window (a retry from an old checkpoint, or a mirror that moved here).
    try (ChangeStreamCursor cursor = stream.open(StreamPosition.after(ResumeToken.ofEvent(all.get(5))))) {
      for (int i = 6; i < 20; i++) {
        assertArrayEquals(bytes(all.get(i)), bytes(cursor.tryNext()), "event " + i);
      }
    }
    // Two cursors at once each have their own generator.
    try (ChangeStreamCursor one = stream.open(BEGINNING); ChangeStreamCursor two = stream.open(BEGINNING)) {
      for (int i = 0; i < 10; i++) {
        assertArrayEquals(bytes(one.tryNext()), bytes(two.tryNext()));
      }
    }
  }

  @Test
  void theSnapshotCopiesTheDocumentsThatExistBeforeTheFirstEvent() {
    try (SnapshotSource snapshot = source.snapshotSource(mirror("m"))) {
      assertEquals(List.of("orders", "products", "users"), snapshot.collectionNames());
      assertEquals(40, snapshot.estimatedCount("orders"));
      List<RawBsonDocument> copied = new ArrayList<>();
      var cursor = snapshot.open("users", io.mongocdc.snapshot.IdRange.whole(), new org.bson.BsonDocument(), 0);
      for (RawBsonDocument document = cursor.next(); document != null; document = cursor.next()) {
        copied.add(document);
      }
      assertEquals(40, copied.size());
      assertEquals(GeneratorUri.parse(URI).initialCollections().documents()
          .get(new io.mongocdc.decode.Namespace("demo", "users")).keySet().stream()
          .sorted(io.mongocdc.snapshot.BsonIdOrder.INSTANCE).toList(),
          copied.stream().map(d -> d.get("_id")).toList());
    }
  }

  @Test
  void aWorkerPicksTheSourceByThePeersScheme() {
    List<String> calls = new ArrayList<>();
    MirrorSourceFactory mongodb = new Recording("mongodb", calls);
    MirrorSourceFactory generator = new Recording("generator", calls);
    SourcesByPeerScheme sources = new SourcesByPeerScheme(peers, mongodb, Map.of("generator", generator));
    sources.validate(mirror("a", "mongo", "shop", List.of()));
    sources.validate(mirror("b", "gen", "demo", List.of()));
    sources.currentPosition(mirror("b", "gen", "demo", List.of()));
    assertEquals(List.of("mongodb validate a", "generator validate b", "generator currentPosition b"), calls);
  }

  private record Recording(String name, List<String> calls) implements MirrorSourceFactory {
    @Override
    public void validate(MirrorConfig mirror) {
      calls.add(name + " validate " + mirror.name());
    }

    @Override
    public ChangeStreamOpener openerFor(MirrorConfig mirror) {
      calls.add(name + " openerFor " + mirror.name());
      return null;
    }

    @Override
    public StreamPosition currentPosition(MirrorConfig mirror) {
      calls.add(name + " currentPosition " + mirror.name());
      return null;
    }
  }
}
