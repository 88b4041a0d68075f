package io.mongocdc.source.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.ControlEvent;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.DriverJsonKeyRenderer;
import io.mongocdc.decode.DriverJsonRenderer;
import io.mongocdc.decode.Operation;
import io.mongocdc.pipeline.DecodedBytesBudget;
import io.mongocdc.workflows.model.ControlEventPolicy;
import io.mongocdc.pipeline.EndReason;
import io.mongocdc.pipeline.ProgressListener;
import io.mongocdc.pipeline.PullRecords;
import io.mongocdc.pipeline.PullRecordsException;
import io.mongocdc.pipeline.PullResult;
import io.mongocdc.pipeline.PullSettings;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.secrets.Redaction;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.PartitionPlanner;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.suggest.DocumentSample;
import io.mongocdc.suggest.SampleLimits;
import io.mongocdc.suggest.SuggestedColumn;
import io.mongocdc.workflows.model.TypedColumn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonDouble;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonMinKey;
import org.bson.BsonNull;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.types.Decimal128;
import org.bson.types.ObjectId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The driver adapter against a real replica set. Runs when {@code MONGODB_URI} points at one
 * (for the compose stack: {@code MONGODB_URI=mongodb://localhost:27017/?replicaSet=rs0}); skipped
 * with a notice otherwise. See docs/source.md.
 */
class MongoSourceIT {

  private static final String URI = System.getenv("MONGODB_URI");
  private static MongoClient client;

  private String dbName;
  private MongoDatabase db;
  private MongoCollection<Document> orders;

  @BeforeAll
  static void connect() {
    if (URI == null || URI.isBlank()) {
      LoggerFactory.getLogger(MongoSourceIT.class).warn(
          "MongoSourceIT skipped: MONGODB_URI is not set (docker compose up, then"
              + " MONGODB_URI=mongodb://localhost:27017/?replicaSet=rs0 mvn -B verify)");
    }
    if (URI != null && !URI.isBlank()) {
      client = MongoClients.create(URI);
    }
  }

  @AfterAll
  static void disconnect() {
    if (client != null) {
      client.close();
    }
  }

  @BeforeEach
  void createDatabase() {
    // Each test reports as skipped, not the suite as empty, when there is no server.
    Assumptions.assumeTrue(client != null, "MONGODB_URI is not set");
    dbName = "cdc_it_" + UUID.randomUUID().toString().substring(0, 8);
    db = client.getDatabase(dbName);
    db.createCollection("orders");
    orders = db.getCollection("orders");
  }

  @AfterEach
  void dropDatabase() {
    if (db != null) {
      db.drop();
    }
  }

  private MongoSourceSettings settings() {
    return new MongoSourceSettings(dbName, List.of(dbName + ".orders"), java.util.Set.of(), 0, Duration.ofMillis(200), false, PreImageMode.OFF);
  }

  private PullRecords pullRecords(ControlEventPolicy policy) {
    return new PullRecords("it", new MongoChangeStreamOpener(ChangeStreamTarget.of(client, dbName), settings()),
        new ChangeEventDecoder(new DriverJsonRenderer(), new DriverJsonKeyRenderer(), DestinationTableResolver.sourceName(),
            ns -> false, ColumnProjections.NONE),
        MirrorSettings.defaults().toBuilder().decodeWorkers(2).chunkSize(3).idleTimeoutSeconds(2)
            .controlEventPolicy(policy).build(), PullSettings.defaults(), System::nanoTime,
        DecodedBytesBudget.ofDefaultSize());
  }

  private StreamPosition now() {
    BsonDocument hello = client.getDatabase("admin").runCommand(new BsonDocument("hello", new org.bson.BsonInt32(1)),
        BsonDocument.class);
    BsonTimestamp clusterTime = hello.getDocument("$clusterTime").getTimestamp("clusterTime");
    return StreamPosition.atOperationTime(new BsonTimestamp(clusterTime.getTime(), clusterTime.getInc() + 1));
  }

  private static class CollectingSink implements RecordSink {
    final List<ChangeRecord> records = new ArrayList<>();

    @Override
    public void write(List<ChangeRecord> batch) {
      records.addAll(batch);
    }

    @Override
    public void commit() {}
  }

  @Test
  void insertUpdateReplaceDeleteArriveInOrderWithLookedUpDocuments() throws Exception {
    StreamPosition start = now();
    orders.insertOne(new Document("_id", 1).append("status", "new"));
    orders.updateOne(Filters.eq("_id", 1), Updates.set("status", "paid"));
    orders.replaceOne(Filters.eq("_id", 1), new Document("_id", 1).append("status", "shipped"));
    orders.deleteOne(Filters.eq("_id", 1));
    CollectingSink sink = new CollectingSink();

    PullResult result = pullRecords(ControlEventPolicy.PAUSE).pull(start, sink, ProgressListener.none());

    assertEquals(List.of(Operation.INSERT, Operation.UPDATE, Operation.REPLACE, Operation.DELETE),
        sink.records.stream().map(ChangeRecord::operation).toList());
    assertTrue(sink.records.get(1).document() == null || sink.records.get(1).document().contains("_id"),
        "updateLookup returns the current document, or none once it is deleted");
    assertEquals("1", sink.records.get(3).key());
    assertEquals(EndReason.IDLE_TIMEOUT, result.endReason());
    assertEquals(StreamPosition.after(sink.records.get(3).position()).tokenOrNull().clusterTime().getTime() > 0, true);
  }

  @Test
  void aTransactionsEventsKeepTheirOrder() throws Exception {
    StreamPosition start = now();
    try (ClientSession session = client.startSession()) {
      session.withTransaction(() -> {
        for (int i = 0; i < 10; i++) {
          orders.insertOne(session, new Document("_id", i));
        }
        return null;
      });
    }
    CollectingSink sink = new CollectingSink();

    pullRecords(ControlEventPolicy.PAUSE).pull(start, sink, ProgressListener.none());

    assertEquals(List.of("0", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
        sink.records.stream().map(ChangeRecord::key).toList());
  }

  @Test
  void resumesAfterTheCheckpointWithNothingLostOrRepeated() throws Exception {
    StreamPosition start = now();
    orders.insertMany(List.of(new Document("_id", 1), new Document("_id", 2)));
    PullRecords pullRecords = pullRecords(ControlEventPolicy.PAUSE);
    CollectingSink first = new CollectingSink();
    PullResult batch1 = pullRecords.pull(start, first, ProgressListener.none());
    orders.insertMany(List.of(new Document("_id", 3), new Document("_id", 4)));
    CollectingSink second = new CollectingSink();

    pullRecords.pull(batch1.checkpoint(), second, ProgressListener.none());

    assertEquals(List.of("1", "2"), first.records.stream().map(ChangeRecord::key).toList());
    assertEquals(List.of("3", "4"), second.records.stream().map(ChangeRecord::key).toList());
  }

  @Test
  void aReaderThatHasCaughtUpWithTheServerCommitsAtOnceNotAtTheBatchEnd() throws Exception {
    StreamPosition start = now();
    orders.insertMany(List.of(new Document("_id", 1), new Document("_id", 2), new Document("_id", 3)));
    // Only being caught up can commit before the batch ends: the visibility delay is an hour.
    Duration idle = Duration.ofSeconds(10);
    PullRecords pull = new PullRecords("it", new MongoChangeStreamOpener(ChangeStreamTarget.of(client, dbName), settings()),
        new ChangeEventDecoder(new DriverJsonRenderer(), new DriverJsonKeyRenderer(), DestinationTableResolver.sourceName(),
            ns -> false, ColumnProjections.NONE),
        MirrorSettings.defaults().toBuilder().decodeWorkers(2).chunkSize(100).idleTimeoutSeconds((int) idle.toSeconds())
            .maxVisibilityDelay((int) Duration.ofHours(1).toMillis()).build(), PullSettings.defaults(), System::nanoTime,
        DecodedBytesBudget.ofDefaultSize());
    long[] allCommittedAt = {0};
    CollectingSink sink = new CollectingSink() {
      @Override
      public void commit() {
        if (records.size() == 3 && allCommittedAt[0] == 0) {
          allCommittedAt[0] = System.nanoTime();
        }
      }
    };

    PullResult result = pull.pull(start, sink, ProgressListener.none());
    long endedAt = System.nanoTime();

    assertEquals(EndReason.IDLE_TIMEOUT, result.endReason());
    assertEquals(3, sink.records.size());
    assertTrue(allCommittedAt[0] > 0 && endedAt - allCommittedAt[0] > idle.toNanos() / 2,
        "the records were committed when the cursor had nothing more, "
            + Duration.ofNanos(endedAt - allCommittedAt[0]) + " before the batch ended");
  }

  private MongoMirrorSourceFactory sourceFactory() {
    return new MongoMirrorSourceFactory(new io.mongocdc.ports.ConfiguredPeerRegistry(Map.of("src", URI), Map.of()));
  }

  private io.mongocdc.workflows.model.MirrorConfig mirrorOfOrders() {
    return new io.mongocdc.workflows.model.MirrorConfig("it", "src", "pg", dbName, List.of("orders"), "public",
        io.mongocdc.workflows.model.MirrorSettings.defaults());
  }

  @Test
  void aMirrorStartedAtAnOperationTimeTheOplogHoldsReadsFromThere() throws Exception {
    orders.insertMany(List.of(new Document("_id", 1), new Document("_id", 2)));
    StreamPosition startAt = now();
    orders.insertMany(List.of(new Document("_id", 3), new Document("_id", 4)));

    assertEquals(List.of("3", "4"), keysReadFromCheckedStart(startAt));
  }

  /** Checks the start point as setup does, then reads a batch from it: the keys it delivers. */
  private List<String> keysReadFromCheckedStart(StreamPosition start) throws Exception {
    try (MongoMirrorSourceFactory source = sourceFactory()) {
      source.requireHistoryHolds(mirrorOfOrders(), start);
    }
    CollectingSink sink = new CollectingSink();
    pullRecords(ControlEventPolicy.PAUSE).pull(start, sink, ProgressListener.none());
    return sink.records.stream().map(ChangeRecord::key).toList();
  }

  @Test
  void aMirrorStartedAfterATokenAnotherToolStoredReadsTheEventsAfterIt() throws Exception {
    ResumeToken stored;
    // Another tool's collection-level change stream, as Debezium or the Kafka connector opens one.
    try (var otherTool = orders.watch().cursor()) {
      orders.insertMany(List.of(new Document("_id", 1), new Document("_id", 2), new Document("_id", 3)));
      var first = otherTool.next();
      stored = ResumeToken.fromDocument(first.getResumeToken());
    }

    assertEquals(List.of("2", "3"), keysReadFromCheckedStart(StreamPosition.after(stored)));
  }

  @Test
  void aStartPointBeforeTheOplogOrAfterNowIsRefusedNamingTheOldestPointHeld() {
    try (MongoMirrorSourceFactory source = sourceFactory()) {
      String before = assertThrows(io.mongocdc.ports.InvalidMirrorConfigurationException.class,
          () -> source.requireHistoryHolds(mirrorOfOrders(), StreamPosition.atOperationTime(new BsonTimestamp(1, 0))))
          .getMessage();
      assertTrue(before.contains("no longer holds the start point 1970-01-01T00:00:01Z")
          && (before.contains("the oldest point it holds is ") || before.contains("could not be read")), before);
      long nowSeconds = now().clusterTime().getTime();
      String future = assertThrows(io.mongocdc.ports.InvalidMirrorConfigurationException.class,
          () -> source.requireHistoryHolds(mirrorOfOrders(),
              StreamPosition.atOperationTime(new BsonTimestamp((int) nowSeconds + 3_600, 0)))).getMessage();
      assertTrue(future.contains("later than the source's time now"), future);
    }
  }

  @Test
  void anIdleStreamAdvancesToAPostBatchToken() throws Exception {
    StreamPosition start = now();
    PullResult result = pullRecords(ControlEventPolicy.PAUSE).pull(start, new CollectingSink(), ProgressListener.none());
    ResumeToken token = result.checkpoint().tokenOrNull();
    assertNotNull(token, "an idle stream still yields a post-batch resume token");
  }

  @Test
  void anInvalidTokenIsHistoryLost() {
    StreamPosition bogus = StreamPosition.after(ResumeToken.of("8200000001000000012B022C0100296E5A1004" + "00".repeat(16) + "04"));
    PullRecordsException error = assertThrows(PullRecordsException.class,
        () -> pullRecords(ControlEventPolicy.PAUSE).pull(bogus, new CollectingSink(), ProgressListener.none()));
    assertInstanceOf(ChangeStreamHistoryLostException.class, error.getCause(), Redaction.redact(error.getMessage()));
  }

  @Test
  void dropAndRenameStopTheBatchUnderThePausePolicy() throws Exception {
    StreamPosition start = now();
    orders.insertOne(new Document("_id", 1));
    orders.renameCollection(new com.mongodb.MongoNamespace(dbName, "orders_old"));
    CollectingSink sink = new CollectingSink();

    PullResult result = pullRecords(ControlEventPolicy.PAUSE).pull(start, sink, ProgressListener.none());

    assertEquals(1, sink.records.size());
    assertEquals(ControlEvent.Type.RENAME, result.stoppedAt().type());
    db.getCollection("orders_old").drop();
    PullResult afterRename = pullRecords(ControlEventPolicy.IGNORE).pull(result.checkpoint(), new CollectingSink(),
        ProgressListener.none());
    assertNull(afterRename.stoppedAt());
    assertTrue(afterRename.controlEvents().stream().anyMatch(e -> e.type() == ControlEvent.Type.RENAME));
  }

  /** MongoDB 6.0+: pre-images of a collection with changeStreamPreAndPostImages, and validation of the setting. */
  @Test
  void preImagesAndUpdateDescriptionsReachTheRecords() throws Exception {
    String version = client.getDatabase("admin").runCommand(new BsonDocument("buildInfo", new org.bson.BsonInt32(1)),
        BsonDocument.class).getString("version").getValue();
    Assumptions.assumeTrue(Integer.parseInt(version.split("\\.")[0]) >= 6, "pre-images need MongoDB 6.0+");
    MongoSourceSettings required = new MongoSourceSettings(dbName, List.of(dbName + ".orders"), java.util.Set.of(), 0, Duration.ofMillis(200), false, PreImageMode.REQUIRED);
    SourceValidationReport refused = new SourceValidator(client).validate(required);
    assertEquals(1, refused.problems().size(), refused.problems().toString());
    assertTrue(refused.problems().get(0).contains("collMod: \"orders\", changeStreamPreAndPostImages: {enabled: true}"),
        refused.problems().get(0));

    db.runCommand(new BsonDocument("collMod", new org.bson.BsonString("orders"))
        .append("changeStreamPreAndPostImages", new BsonDocument("enabled", org.bson.BsonBoolean.TRUE)));
    assertEquals(List.of(), new SourceValidator(client).validate(required).problems());
    StreamPosition start = now();
    orders.insertOne(new Document("_id", 1).append("status", "new").append("note", "x"));
    orders.updateOne(Filters.eq("_id", 1), Updates.combine(Updates.set("status", "paid"), Updates.unset("note")));
    orders.deleteOne(Filters.eq("_id", 1));
    CollectingSink sink = new CollectingSink();
    PullRecords pull = new PullRecords("it", new MongoChangeStreamOpener(ChangeStreamTarget.of(client, dbName), required),
        new ChangeEventDecoder(new DriverJsonRenderer(), new DriverJsonKeyRenderer(),
            DestinationTableResolver.sourceName(), ns -> true, ColumnProjections.NONE),
        MirrorSettings.defaults().toBuilder().decodeWorkers(2).chunkSize(3).idleTimeoutSeconds(2).build(),
        PullSettings.defaults(), System::nanoTime, DecodedBytesBudget.ofDefaultSize());

    pull.pull(start, sink, ProgressListener.none());

    assertEquals(3, sink.records.size());
    assertNull(sink.records.get(0).documentBefore());
    assertEquals("{\"_id\": 1, \"status\": \"new\", \"note\": \"x\"}", sink.records.get(1).documentBefore());
    assertTrue(sink.records.get(1).updateDescription().contains("\"updatedFields\": {\"status\": \"paid\"}"),
        sink.records.get(1).updateDescription());
    assertTrue(sink.records.get(1).updateDescription().contains("\"removedFields\": [\"note\"]"),
        sink.records.get(1).updateDescription());
    assertEquals("{\"_id\": 1, \"status\": \"paid\"}", sink.records.get(2).documentBefore());
  }

  @Test
  void validationReportsTopologyVersionAndOplogWindow() {
    SourceValidationReport report = new SourceValidator(client).validate(settings());
    assertEquals(List.of(), report.problems());
    assertTrue(report.topology().startsWith("replica set") || report.topology().equals("sharded cluster"));

    SourceValidationReport missing = new SourceValidator(client)
        .validate(MongoSourceSettings.of(dbName, List.of(dbName + ".nope")));
    assertEquals(List.of("collection " + dbName + ".nope does not exist"), missing.problems());
  }

  /** Every _id type in one collection; a locale default collation must not change string ranges. */
  @Test
  void snapshotPartitionsReadEveryDocumentExactlyOnce() {
    db.createCollection("mixed", new com.mongodb.client.model.CreateCollectionOptions()
        .collation(com.mongodb.client.model.Collation.builder().locale("en").build()));
    db.createView("mixed_view", "mixed", List.of());
    MongoCollection<BsonDocument> mixed = db.getCollection("mixed", BsonDocument.class);
    List<BsonValue> ids = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      ids.add(new BsonObjectId(new ObjectId()));
      ids.add(i % 3 == 0 ? new BsonInt32(i) : i % 3 == 1 ? new BsonInt64((1L << 53) + i) : new BsonDouble(i + 0.25));
      // Binary order (B < Z < a < c) differs from the "en" order (a < B < c < Z).
      ids.add(new BsonString(List.of("a", "B", "c", "Z", "\u00e9", "\uD83D\uDE00").get(i % 6) + i));
    }
    ids.addAll(List.of(new BsonDouble(Double.NaN), new BsonDecimal128(Decimal128.parse("1E+400")), new BsonMinKey(),
        BsonNull.VALUE, new BsonDateTime(-1), new BsonTimestamp(7, 1), new BsonBinary(new byte[] {1, 2}),
        new BsonDocument("k", new BsonInt32(1))));
    for (BsonValue id : ids) {
      mixed.insertOne(new BsonDocument("_id", id).append("v", new BsonInt32(1)));
    }
    MongoSnapshotSource source = new MongoSnapshotSource(client, dbName);
    assertEquals(List.of("mixed", "orders"), source.collectionNames());
    long count = source.estimatedCount("mixed");
    assertEquals(ids.size(), count);
    List<BsonValue> sample = source.sampleIds("mixed", PartitionPlanner.sampleSizeFor(count, 10));
    List<IdRange> plan = PartitionPlanner.plan(count, sample, 10);
    assertTrue(plan.size() >= 10, plan.toString());

    Map<String, Integer> reads = new HashMap<>();
    for (IdRange range : plan) {
      for (BsonDocument filter : List.of(new BsonDocument(), BsonDocument.parse("{v: {$gte: 1}}"))) {
        try (DocumentCursor cursor = source.open("mixed", range, filter, 7)) {
          for (RawBsonDocument doc = cursor.next(); doc != null; doc = cursor.next()) {
            assertTrue(range.contains(doc.get("_id")), range.describe() + " returned " + doc.toJson());
            reads.merge(new BsonDocument("_id", doc.get("_id")).toJson(), 1, Integer::sum);
          }
        }
      }
    }
    assertEquals(ids.size(), reads.size());
    assertTrue(reads.values().stream().allMatch(n -> n == 2), "every document once per filter: " + reads);
  }

  /**
   * A partition whose server cursor is killed mid-read (error 43 at its next getMore) is read on
   * after the last _id it returned, and yields every document once.
   */
  @Test
  void aSnapshotCursorKilledMidPartitionIsReadOnAfterItsLastId() {
    MongoCollection<BsonDocument> many = db.getCollection("many", BsonDocument.class);
    List<BsonDocument> documents = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      documents.add(new BsonDocument("_id", new BsonInt32(i)).append("v", new BsonString("x".repeat(100))));
    }
    many.insertMany(documents);
    MongoSnapshotSource source = new MongoSnapshotSource(client, dbName);
    List<Integer> read = new ArrayList<>();
    try (DocumentCursor cursor = source.open("many", IdRange.whole(), new BsonDocument(), 10)) {
      for (int i = 0; i < 15; i++) {
        read.add(cursor.next().getInt32("_id").getValue());
      }
      // The partition's idle cursor on this namespace, as an operator would find and kill it.
      List<BsonValue> cursorIds = new ArrayList<>();
      client.getDatabase("admin").aggregate(List.of(
              new BsonDocument("$currentOp", new BsonDocument("idleCursors", org.bson.BsonBoolean.TRUE)),
              new BsonDocument("$match", new BsonDocument("type", new BsonString("idleCursor"))
                  .append("ns", new BsonString(dbName + ".many")))), BsonDocument.class)
          .forEach(op -> cursorIds.add(op.getDocument("cursor").get("cursorId")));
      assertEquals(1, cursorIds.size(), cursorIds.toString());
      BsonDocument killed = db.runCommand(new BsonDocument("killCursors", new BsonString("many"))
          .append("cursors", new org.bson.BsonArray(cursorIds)), BsonDocument.class);
      assertEquals(1, killed.getArray("cursorsKilled").size(), killed.toJson());
      for (RawBsonDocument doc = cursor.next(); doc != null; doc = cursor.next()) {
        read.add(doc.getInt32("_id").getValue());
      }
    }
    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      expected.add(i);
    }
    assertEquals(expected, read, "every document once, in _id order");
  }

  @Test
  void sampleDocumentsReadsABoundedRandomSampleOfWholeDocuments() {
    MongoCollection<BsonDocument> typed = db.getCollection("typed", BsonDocument.class);
    for (int i = 0; i < 200; i++) {
      typed.insertOne(new BsonDocument("_id", new BsonInt32(i))
          .append("status", new BsonString("s" + i % 3))
          .append("key", new BsonBinary(UUID.randomUUID()))
          .append("at", new BsonDateTime(1_700_000_000_000L + i))
          .append("amount", i % 2 == 0 ? new BsonInt32(i) : new BsonInt64(i)));
    }
    MongoSnapshotSource source = new MongoSnapshotSource(client, dbName);

    List<RawBsonDocument> sampled = new ArrayList<>();
    source.sampleDocuments("typed", 50, Duration.ofSeconds(10), sampled::add);
    assertEquals(50, sampled.size());
    assertEquals(50, sampled.stream().map(d -> d.get("_id")).distinct().count(), "distinct documents");
    DocumentSample sample = new DocumentSample(SampleLimits.defaults());
    sampled.forEach(sample::add);
    Map<String, String> types = new HashMap<>();
    for (SuggestedColumn column : sample.suggestions("typed", TypedColumn.RESERVED).proposed()) {
      types.put(column.path(), column.type());
    }
    assertEquals(Map.of("status", "text", "key", "uuid", "at", "timestamptz", "amount", "bigint"), types,
        "UUIDs as the driver stores them are binary subtype 4");

    List<RawBsonDocument> all = new ArrayList<>();
    source.sampleDocuments("typed", 1_000, Duration.ofSeconds(10), all::add);
    assertEquals(200, all.size(), "a sample larger than the collection is the collection");
    List<RawBsonDocument> none = new ArrayList<>();
    source.sampleDocuments("missing", 10, Duration.ofSeconds(10), none::add);
    assertEquals(List.of(), none);
    assertThrows(IllegalArgumentException.class, () -> source.sampleDocuments("typed", 0, Duration.ofSeconds(1), d -> {}));
  }
}
