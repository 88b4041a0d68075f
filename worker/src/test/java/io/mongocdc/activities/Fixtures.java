package io.mongocdc.activities;

import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.testing.TestPorts;
import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.decode.Namespace;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.devtools.generator.ResumeTokens;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.SnapshotSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;

/** Mirrors, peers and event scripts shared by the activity, workflow and CLI tests. */
public final class Fixtures {

  /** The password in the source peer's connection string: must never leave the worker. */
  public static final String SOURCE_PASSWORD = "s3cr3t-Pa55word";
  public static final String SOURCE_URI = "mongodb://cdc:" + SOURCE_PASSWORD + "@db1.example:27017/?replicaSet=rs0";
  public static final Namespace ORDERS = new Namespace("shop", "orders");
  /** A position before every event {@link ChangeEvents} makes. */
  public static final StreamPosition BEFORE_EVENTS =
      StreamPosition.atOperationTime(new BsonTimestamp(1_699_999_999, 1));
  public static final StreamPosition AFTER_START =
      StreamPosition.after(ResumeTokens.highWaterMark(new BsonTimestamp(1_699_999_999, 1)));

  private Fixtures() {}

  public static PeerRegistry peers() {
    return peersWithHashKey(null);
  }

  /** {@link #peers()} on a worker whose environment sets the field hash key to {@code key} (null: none). */
  public static PeerRegistry peersWithHashKey(String key) {
    return new ConfiguredPeerRegistry(
        Map.of("orders-mongo", SOURCE_URI, "warehouse-pg", "postgresql://cdc:pg-" + SOURCE_PASSWORD + "@pg1/warehouse"),
        key == null ? Map.of() : Map.of(io.mongocdc.privacy.HashKey.ENVIRONMENT_VARIABLE, key));
  }

  /**
   * A worker's ports in memory: a source over {@code stream} whose current time is
   * {@link #BEFORE_EVENTS} and whose database is empty, the destination and catalog given.
   */
  public static WorkerPorts inMemoryPorts(
      InMemoryDestination destination, InMemoryCatalog catalog, ChangeStreamOpener stream) {
    return inMemoryPorts(destination, catalog, stream, BEFORE_EVENTS);
  }

  /** {@link #inMemoryPorts(InMemoryDestination, InMemoryCatalog, ChangeStreamOpener)} with the source's time now. */
  public static WorkerPorts inMemoryPorts(
      InMemoryDestination destination, InMemoryCatalog catalog, ChangeStreamOpener stream, StreamPosition now) {
    return TestPorts.inMemory().source(new ScriptedSource(stream, now, peers())).destination(destination)
        .checkpoints(catalog).build();
  }

  /** {@link #inMemoryPorts(InMemoryDestination, InMemoryCatalog, ChangeStreamOpener)} with a new destination and catalog. */
  public static WorkerPorts inMemoryPorts(ChangeStreamOpener stream) {
    return inMemoryPorts(new InMemoryDestination(), new InMemoryCatalog(), stream);
  }

  /** Pull tuning for end-to-end workflow tests: progress every 20 ms, a 10 s shutdown. */
  public static PullTuning quickPulls() {
    return PullTuning.defaults().withProgressInterval(java.time.Duration.ofMillis(20))
        .withShutdownTimeout(java.time.Duration.ofSeconds(10));
  }

  public static MirrorSettings smallSettings() {
    return MirrorSettings.defaults().toBuilder().batchSize(1_000).idleTimeoutSeconds(3).maxBatchDurationSeconds(600).decodeWorkers(2).chunkSize(8).snapshot(SnapshotSettings.off()).build();
  }

  public static MirrorConfig orders() {
    return orders(smallSettings());
  }

  public static MirrorConfig orders(MirrorSettings settings) {
    return new MirrorConfig("orders", "orders-mongo", "warehouse-pg", "shop", List.of("orders"), "public", settings);
  }

  /** Inserts of orders {@code {_id: 0}} .. {@code {_id: count - 1}}, one event each, one increment apart. */
  public static List<RawBsonDocument> orderInserts(int count) {
    ChangeEvents events = new ChangeEvents();
    return java.util.stream.IntStream.range(0, count)
        .mapToObj(id -> events.insert(ORDERS, new BsonDocument("_id", new BsonInt32(id)))).toList();
  }

  /**
   * {@code count} events on shop.orders: inserts of documents 0..n-1, then every third one
   * updated and every fifth one deleted, in a deterministic mix.
   */
  public static List<RawBsonDocument> orderEvents(int count) {
    ChangeEvents events = new ChangeEvents();
    List<RawBsonDocument> out = new ArrayList<>();
    int inserted = 0;
    for (int i = 0; i < count; i++) {
      if (i % 5 == 4 && inserted > 1) {
        out.add(events.delete(ORDERS, new BsonInt32(inserted - 2)));
      } else if (i % 3 == 2 && inserted > 0) {
        int id = inserted - 1;
        BsonDocument after = order(id).append("status", new BsonString("paid-" + i));
        out.add(events.update(ORDERS, new BsonInt32(id), after, new BsonDocument("status", new BsonString("paid-" + i))));
      } else {
        out.add(events.insert(ORDERS, order(inserted++)));
      }
    }
    return out;
  }

  private static BsonDocument order(int id) {
    return new BsonDocument("_id", new BsonInt32(id)).append("n", new BsonInt32(id)).append("status", new BsonString("new"));
  }
}
