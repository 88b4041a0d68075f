package io.mongocdc.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.RevealedChangeStream;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.source.scripted.ScriptedSnapshotSource;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.OplogSpan;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import javax.sql.DataSource;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.types.ObjectId;

/**
 * A scripted MongoDB database for end-to-end workflow tests: documents put there before the
 * mirror starts, a script of random changes a seed decides, the change stream of that script (of
 * which the test reveals a growing prefix), the snapshot source (whose documents the test moves
 * through the script as the server would), and the {@link ScriptedSource} a worker reads it all
 * through. A test drives the world and compares the destination with it:
 *
 * <pre>
 * ScriptedWorld world = new ScriptedWorld(7, ScriptedWorld.ChangeMix.WITH_REPLACES);
 * world.prefill("orders", 100);
 * world.change("orders", 30);
 * world.reveal(30);
 * ... start a worker with world.source(), wait until world.delivered(status, 29) ...
 * world.assertDestinationHoldsScript(fixture.destination(), mirror, "orders");
 * </pre>
 */
public final class ScriptedWorld {

  /** The source database's name. */
  public static final String DATABASE = "shop";
  /** The source's time before any scripted change: where a new mirror starts unless {@link #startAfter}. */
  public static final BsonTimestamp START = new BsonTimestamp(1_700_000_000, 0);

  /** The kinds of change the script is made of, in tenths (they add up to 10). */
  public record ChangeMix(int inserts, int updates, int replaces, int deletes) {
    /** Inserts, updates, replacements and a few deletes. */
    public static final ChangeMix WITH_REPLACES = new ChangeMix(3, 4, 2, 1);
    /** Inserts, updates and deletes; no replacement. */
    public static final ChangeMix NO_REPLACES = new ChangeMix(3, 5, 0, 2);

    public ChangeMix {
      if (inserts + updates + replaces + deletes != 10 || inserts < 0 || updates < 0 || replaces < 0 || deletes < 0) {
        throw new IllegalArgumentException("a mix is ten tenths: " + inserts + "/" + updates + "/" + replaces + "/" + deletes);
      }
    }
  }

  /** What a scripted change did: the document with this id is {@code after} (null: deleted). */
  private record Effect(String collection, BsonValue id, BsonDocument after) {}

  private final Random random;
  private final ChangeMix mix;
  private final ChangeEvents events = new ChangeEvents(1_700_000_000);
  private final ScriptedSnapshotSource snapshot = new ScriptedSnapshotSource(3);
  /** Per collection: its documents once every scripted change so far is applied. */
  private final Map<String, Map<BsonValue, BsonDocument>> scripted = new HashMap<>();
  private final List<Effect> effects = new ArrayList<>();
  private final List<RawBsonDocument> changeEvents = new ArrayList<>();
  private int documentNumber;
  /** Documents carry personal data ({@link #withPersonalData}). */
  private boolean personal;
  /** Per collection, every document the source held at any time (prefilled, inserted, updated, replaced). */
  private final Map<String, List<BsonDocument>> everHeld = new HashMap<>();
  private volatile RevealedChangeStream stream = new RevealedChangeStream(List.of());
  private volatile int applied;
  private volatile CountDownLatch idReads = new CountDownLatch(0);
  private volatile BsonTimestamp historyLostBefore;
  private volatile Runnable whenStartingPointTaken = () -> {};
  private volatile StreamPosition start = StreamPosition.atOperationTime(START);

  public ScriptedWorld(long seed, ChangeMix mix) {
    this.random = new Random(seed);
    this.mix = mix;
  }

  /**
   * From now on, documents carry personal data a field rule may protect, each value unique to its
   * path and document: {@code email}, {@code customer.name}, {@code customer.phone}; updates set a
   * new {@code email} too. It draws nothing from the seed, so the script's operations stay those
   * the seed makes without.
   */
  public ScriptedWorld withPersonalData() {
    personal = true;
    return this;
  }

  /** Every document the collection held at any time, as scripted so far. */
  public List<BsonDocument> everyDocument(String collection) {
    return List.copyOf(everHeld.getOrDefault(collection, List.of()));
  }

  // ---- the script ----

  /** Creates the collection (if new) with {@code documents} more documents, before any change. */
  public void prefill(String collection, int documents) {
    snapshot.createCollection(collection);
    Map<BsonValue, BsonDocument> docs = scripted.computeIfAbsent(collection, c -> new LinkedHashMap<>());
    for (int i = 0; i < documents; i++) {
      BsonDocument doc = newDocument(newId());
      docs.put(doc.get("_id"), doc);
      snapshot.put(collection, doc);
      everHeld.computeIfAbsent(collection, c -> new ArrayList<>()).add(doc.clone());
    }
  }

  /** Appends {@code count} random changes of the collection to the script (not applied, not revealed). */
  public void change(String collection, int count) {
    changeMixed(List.of(collection), count);
  }

  /** Appends {@code count} random changes, each of one of the collections, to the script. */
  public void changeMixed(List<String> collections, int count) {
    for (int i = 0; i < count; i++) {
      String collection = collections.size() == 1 ? collections.get(0) : collections.get(random.nextInt(collections.size()));
      Map<BsonValue, BsonDocument> docs = scripted.computeIfAbsent(collection, c -> new LinkedHashMap<>());
      Namespace ns = new Namespace(DATABASE, collection);
      List<BsonValue> ids = new ArrayList<>(docs.keySet());
      int op = ids.isEmpty() ? 0 : random.nextInt(10);
      RawBsonDocument event;
      BsonValue id;
      BsonDocument after;
      if (op < mix.inserts()) {
        after = newDocument(newId());
        id = after.get("_id");
        event = events.insert(ns, after);
      } else if (op < mix.inserts() + mix.updates()) {
        id = ids.get(random.nextInt(ids.size()));
        after = docs.get(id).clone();
        BsonDocument changed = new BsonDocument("version", new BsonInt32(random.nextInt(1_000_000)));
        if (personal) {
          changed.append("email", new BsonString("mail" + documentNumber++ + "@example.com"));
        }
        after.putAll(changed);
        event = events.update(ns, id, after, changed);
      } else if (op < mix.inserts() + mix.updates() + mix.replaces()) {
        id = ids.get(random.nextInt(ids.size()));
        after = newDocument(id);
        event = events.replace(ns, after);
      } else {
        id = ids.get(random.nextInt(ids.size()));
        after = null;
        event = events.delete(ns, id);
      }
      if (after == null) {
        docs.remove(id);
      } else {
        docs.put(id, after);
      }
      effects.add(new Effect(collection, id, after == null ? null : after.clone()));
      if (after != null) {
        everHeld.computeIfAbsent(collection, c -> new ArrayList<>()).add(after.clone());
      }
      changeEvents.add(event);
    }
    // A new stream of the longer script; cursors opened before go on reading the one they opened.
    stream = new RevealedChangeStream(changeEvents);
  }

  /** Shows the first {@code count} scripted changes on the stream. */
  public void reveal(int count) {
    stream.reveal(count);
  }

  /** Applies changes [from, to) to the source's documents, as the server would, in order. */
  public void applyToSource(int from, int to) {
    for (int i = from; i < to; i++) {
      Effect effect = effects.get(i);
      if (effect.after() == null) {
        snapshot.delete(effect.collection(), effect.id());
      } else {
        snapshot.put(effect.collection(), effect.after());
      }
      applied = i + 1;
    }
  }

  /** The source's documents, as snapshots and verify read them, with the hooks to stop or fail a read. */
  public ScriptedSnapshotSource snapshot() {
    return snapshot;
  }

  /** A number below {@code bound} from the world's seed, for a test's own random choice. */
  public int nextInt(int bound) {
    return random.nextInt(bound);
  }

  // ---- the source's time and history ----

  /** The source's time moves just past change {@code index}: a new mirror (or a resync) starts there. */
  public void startAfter(int index) {
    start = StreamPosition.atOperationTime(justAfter(index));
  }

  /** The source's oplog no longer holds anything before the time set by {@link #startAfter}. */
  public void loseHistoryBeforeStart() {
    historyLostBefore = start.clusterTime();
  }

  /** The source's oplog no longer holds anything before {@code time} (null: it holds everything again). */
  public void loseHistoryBefore(BsonTimestamp time) {
    historyLostBefore = time;
  }

  /** Runs each time a starting point is taken (a new mirror or a resync), before it is returned. */
  public void whenStartingPointTaken(Runnable action) {
    whenStartingPointTaken = action;
  }

  /** A time just after change {@code index} and before the next one. */
  public BsonTimestamp justAfter(int index) {
    BsonTimestamp at = stream.tokenOf(index).clusterTime();
    return new BsonTimestamp(at.getTime(), at.getInc() + 1);
  }

  /** Counts down once each time verify reads single documents by {@code _id} from now on. */
  public CountDownLatch countIdReads() {
    CountDownLatch latch = new CountDownLatch(1);
    idReads = latch;
    return latch;
  }

  /** The oplog span the source tells (unset: none reported). */
  private volatile OplogSpan oplogSpan;

  /** The source tells {@code span} as its oplog span from now on. */
  public void oplogSpan(OplogSpan span) {
    this.oplogSpan = span;
  }

  /**
   * The source a worker reads the world through: every collection of the mirror must exist; the
   * stream is the script's, filtered to the mirror's collections, and fails with code 286 where
   * the history is lost; new mirrors start at the time {@link #startAfter} set (first {@link
   * #START}); verify reads from just after the last change applied to the documents.
   */
  public ScriptedSource source() {
    return ScriptedSource.builder()
        .validation(mirror -> {
          for (String collection : mirror.collections()) {
            if (!snapshot.collectionNames().contains(collection)) {
              throw new InvalidMirrorConfigurationException("collection " + collection
                  + " does not exist in " + mirror.sourceDatabase());
            }
          }
        })
        .streams(mirror -> position -> {
          BsonTimestamp lostBefore = historyLostBefore;
          if (lostBefore != null && position.clusterTime().compareTo(lostBefore) < 0) {
            throw new ChangeStreamHistoryLostException("resume point may no longer be in the oplog", 286, null);
          }
          return stream.watching(Set.copyOf(mirror.collections())).open(position);
        })
        .snapshots(mirror -> new IdReadSignallingSource())
        .oplogSpan(() -> oplogSpan)
        .now(() -> {
          StreamPosition taken = start;
          whenStartingPointTaken.run();
          return taken;
        })
        .readPosition(() -> {
          int n = applied;
          return n == 0 ? StreamPosition.atOperationTime(START) : StreamPosition.after(stream.tokenOf(n - 1));
        })
        .build();
  }

  /** The snapshot source, counting down {@link #countIdReads}'s latch when verify reads single documents. */
  private final class IdReadSignallingSource implements SnapshotSource {
    @Override
    public List<String> collectionNames() {
      return snapshot.collectionNames();
    }

    @Override
    public long estimatedCount(String collection) {
      return snapshot.estimatedCount(collection);
    }

    @Override
    public List<BsonValue> sampleIds(String collection, int size) {
      return snapshot.sampleIds(collection, size);
    }

    @Override
    public DocumentCursor open(String collection, IdRange range, BsonDocument filter, int batchSize) {
      return snapshot.open(collection, range, filter, batchSize);
    }

    @Override
    public List<RawBsonDocument> findByIds(String collection, List<BsonValue> ids) {
      List<RawBsonDocument> found = snapshot.findByIds(collection, ids);
      idReads.countDown();
      return found;
    }

    @Override
    public void close() {}
  }

  // ---- what the mirror should have ----

  /**
   * Whether the destination holds everything through change {@code index}: the committed
   * checkpoint passed it, and every copy, with the sweep after it, is over (the mirror no longer
   * snapshotting). The batches stream while a copy runs, so the checkpoint alone can pass the last
   * change with partitions still to copy.
   */
  public boolean delivered(MirrorStatus status, int index) {
    return streamed(status, index) && status.copiesOver();
  }

  /** Whether the status's committed checkpoint has passed change {@code index}, copies or not. */
  public boolean streamed(MirrorStatus status, int index) {
    return stream.deliveredThrough(status, index);
  }

  /** The resume token of change {@code index}, as a checkpoint holds it. */
  public String checkpointAtEvent(int index) {
    return stream.tokenOf(index).data();
  }

  /** The mirror's one snapshot copies (or copied) from the latest starting point {@link #startAfter} set. */
  public boolean copyingFromStart(MirrorStatus status) {
    if (status.snapshots().size() != 1 || status.snapshots().get(0).position() == null) {
      return false;
    }
    Checkpoint from = status.snapshots().get(0).position();
    StreamPosition at = start;
    return from.clusterTimeSeconds() == at.clusterTime().getTime() && from.clusterTimeIncrement() == at.clusterTime().getInc();
  }

  /** Ids of the collection's documents in the source now that no change from {@code index} on touches. */
  public List<BsonValue> untouchedFrom(String collection, int index) {
    Set<String> touched = new HashSet<>();
    IdKeyRenderer keys = new IdKeyRenderer();
    for (int i = index; i < effects.size(); i++) {
      if (effects.get(i).collection().equals(collection)) {
        touched.add(keys.render(effects.get(i).id()));
      }
    }
    List<BsonValue> ids = new ArrayList<>();
    for (RawBsonDocument document : snapshot.documents(collection)) {
      if (!touched.contains(keys.render(document.get("_id")))) {
        ids.add(document.get("_id"));
      }
    }
    return ids;
  }

  /** Keys of the documents changes [from, to) deleted and nothing after them brought back. */
  public Set<String> deletedBetween(int from, int to) {
    IdKeyRenderer keys = new IdKeyRenderer();
    Set<String> deleted = new HashSet<>();
    for (int i = from; i < to; i++) {
      String key = keys.render(effects.get(i).id());
      if (effects.get(i).after() == null) {
        deleted.add(key);
      } else {
        deleted.remove(key);
      }
    }
    return deleted;
  }

  /** The mirror's destination table of the collection. */
  public static String table(MirrorConfig mirror, String collection) {
    return TableNaming.qualified(mirror.destinationSchema(), TableNaming.tableName(new Namespace(DATABASE, collection)));
  }

  /** The destination's live rows of the collection are its documents once the whole script is applied. */
  public void assertDestinationHoldsScript(DataSource destination, MirrorConfig mirror, String collection)
      throws SQLException {
    TranscodingJsonRenderer json = TranscodingJsonRenderer.relaxed();
    IdKeyRenderer keys = new IdKeyRenderer();
    Map<String, String> expected = new HashMap<>();
    scripted.getOrDefault(collection, Map.of()).forEach((id, doc) -> expected.put(keys.render(id),
        json.render(RawBsonDocument.parse(doc.toJson()))));
    assertTableHolds(destination, table(mirror, collection), collection, expected);
  }

  /** The destination's live rows of the collection are the source's documents now. */
  public void assertDestinationEqualsSource(DataSource destination, MirrorConfig mirror, String collection)
      throws SQLException {
    TranscodingJsonRenderer json = TranscodingJsonRenderer.relaxed();
    IdKeyRenderer keys = new IdKeyRenderer();
    Map<String, String> expected = new HashMap<>();
    for (RawBsonDocument document : snapshot.documents(collection)) {
      expected.put(keys.renderIdOf(document), json.render(document));
    }
    assertTableHolds(destination, table(mirror, collection), collection, expected);
  }

  /** The table's live rows are exactly {@code expected}: rendered key to document JSON. */
  private static void assertTableHolds(DataSource destination, String table, String collection,
      Map<String, String> expected) throws SQLException {
    try (Connection c = destination.getConnection()) {
      List<String> live = new ArrayList<>();
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("select \"_id\" from " + table + " where not \"_deleted\"")) {
        while (rs.next()) {
          live.add(rs.getString(1));
        }
      }
      assertEquals(expected.keySet(), Set.copyOf(live), "live rows of " + collection);
      try (PreparedStatement st = c.prepareStatement("select doc = ?::jsonb, doc::text from " + table + " where \"_id\" = ?")) {
        for (Map.Entry<String, String> e : expected.entrySet()) {
          st.setString(1, e.getValue());
          st.setString(2, e.getKey());
          try (ResultSet rs = st.executeQuery()) {
            assertTrue(rs.next(), "row " + e.getKey() + " of " + collection);
            if (!rs.getBoolean(1)) {
              fail("row " + e.getKey() + " of " + collection + " is " + rs.getString(2) + ", expected " + e.getValue());
            }
          }
        }
      }
    }
  }

  private BsonValue newId() {
    // Mixed _id types, as real collections sometimes have.
    int n = documentNumber++;
    return switch (random.nextInt(3)) {
      case 0 -> new BsonInt32(n);
      case 1 -> new BsonObjectId(new ObjectId(1_700_000_000 + n, n));
      default -> new BsonString("key-" + n);
    };
  }

  private BsonDocument newDocument(BsonValue id) {
    BsonDocument doc = new BsonDocument("_id", id).append("n", new BsonInt32(documentNumber++))
        .append("status", new BsonString(random.nextBoolean() ? "active" : "archived"));
    if (personal) {
      int n = documentNumber++;
      doc.append("email", new BsonString("mail" + n + "@example.com"))
          .append("customer", new BsonDocument("name", new BsonString("Name-" + n))
              .append("phone", new BsonString("phone-" + n)));
    }
    return doc;
  }
}
