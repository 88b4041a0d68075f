package io.mongocdc.faults;

import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.source.scripted.ManualClock;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * A random workload over a bounded key space (inserts, updates, replaces, deletes, some
 * multi-document transactions, idle gaps of one to four polls with or without post-batch tokens,
 * and, when asked, collection drops) and the model of the source it leaves behind: per key the
 * last document, whether it is deleted, and the token that last wrote it. A drop changes nothing
 * in the model: the mirror does not apply control events (IGNORE passes them, PAUSE stops before
 * them until the operator passes them); after it the source's keys start again with inserts.
 *
 * <p>A workload may span several collections of {@code shop} (the first is {@code orders}), and a
 * collection may hold documents before the first event: the documents a snapshot copies. Some of
 * them are in the key space the events touch (updated, replaced, deleted), the others are never
 * touched. The model then knows, for a snapshot started at a position, which rows the
 * destination must end with and at which position ({@link #expectedRows}).
 */
final class RandomWorkload {

  static final String DATABASE = "shop";
  static final String ORDERS = "orders";
  static final Namespace NS = new Namespace(DATABASE, ORDERS);

  /** A collection of the workload and how many documents it holds before the first event (about). */
  record CollectionPlan(String name, int existing) {}

  /** One event of the script as the model sees it. */
  record Applied(String collection, String key, BsonValue id, ResumeToken token, RawBsonDocument document,
      boolean delete) {}

  /** The source's final state of one key. */
  record KeyState(RawBsonDocument document, boolean deleted, ResumeToken token) {}

  final List<RawBsonDocument> events = new ArrayList<>();
  final List<Applied> applied = new ArrayList<>();
  /** Per collection, the documents it holds before the first event, by key. */
  final Map<String, Map<String, RawBsonDocument>> existing = new LinkedHashMap<>();
  final ScriptedChangeStream stream;
  final ManualClock clock = new ManualClock();
  int transactions;
  int idleGaps;
  int idlePolls;
  int longIdleGaps;
  int drops;

  /**
   * @param idleTimeoutPolls idle polls in a row that end a batch (the idle timeout); gaps that
   *     long are counted as long
   * @param withDrops whether the script may drop the collection (only with one collection)
   * @param collections the collections; the first takes two events in three when there are more
   */
  RandomWorkload(Random random, int eventCount, int idleTimeoutPolls, boolean withDrops,
      List<CollectionPlan> collections) {
    ChangeEvents changes = new ChangeEvents();
    ScriptedChangeStream.Builder script = ScriptedChangeStream.builder();
    IdKeyRenderer keys = new IdKeyRenderer();
    List<Keys> spaces = new ArrayList<>();
    for (CollectionPlan plan : collections) {
      Keys space = new Keys(new Namespace(DATABASE, plan.name()), 3 + random.nextInt(14), random.nextBoolean());
      spaces.add(space);
      Map<String, RawBsonDocument> before = new LinkedHashMap<>();
      existing.put(plan.name(), before);
      if (plan.existing() > 0) {
        // Keys the events touch exist with even odds; untouched keys beyond the key space make
        // up the rest, so some copied rows keep the snapshot's position to the end.
        List<Integer> present = new ArrayList<>();
        for (int k = 0; k < space.size; k++) {
          if (random.nextBoolean()) {
            present.add(k);
          }
        }
        int untouched = Math.max(2, plan.existing() - present.size());
        for (int k = space.size; k < space.size + untouched; k++) {
          present.add(k);
        }
        for (int k : present) {
          BsonDocument doc = document(space.id(k), 0, random);
          RawBsonDocument raw = new RawBsonDocument(doc, new BsonDocumentCodec());
          before.put(keys.renderIdOf(raw), raw);
          if (k < space.size) {
            space.live.put(k, doc);
          }
        }
      }
    }
    boolean drops = withDrops && spaces.size() == 1;
    int revision = 0;
    boolean lastWasIdle = false;
    while (events.size() < eventCount) {
      int roll = random.nextInt(100);
      // A gap of 1-4 idle polls; one as long as the idle timeout ends the batch there (a reopened
      // cursor does not replay quiet time, so the next batch goes on with the events after it).
      if (roll < 6 && !lastWasIdle && !events.isEmpty()) {
        lastWasIdle = true;
        idleGaps++;
        int polls = 1 + random.nextInt(4);
        idlePolls += polls;
        if (polls >= idleTimeoutPolls) {
          longIdleGaps++;
        }
        for (int p = 0; p < polls; p++) {
          if (random.nextBoolean()) {
            script.idle(changes.highWaterMark());
          } else {
            script.idle();
          }
        }
        continue;
      }
      lastWasIdle = false;
      // A collection drop, never the last event (the run ends when the last data event is committed).
      if (drops && roll >= 98 && !events.isEmpty() && events.size() + 2 <= eventCount) {
        this.drops++;
        RawBsonDocument drop = changes.drop(NS);
        events.add(drop);
        script.event(drop);
        spaces.get(0).live.clear();
        continue;
      }
      int inThisStep = 1;
      boolean transaction = roll < 14 && events.size() + 2 <= eventCount;
      if (transaction) {
        transactions++;
        changes.beginTransaction(transactions);
        inThisStep = 2 + random.nextInt(Math.min(3, eventCount - events.size() - 1));
      }
      for (int i = 0; i < inThisStep; i++) {
        Keys space = spaces.size() == 1 || random.nextInt(3) != 0 ? spaces.get(0)
            : spaces.get(1 + random.nextInt(spaces.size() - 1));
        int k = random.nextInt(space.size);
        BsonValue id = space.id(k);
        BsonDocument before = space.live.get(k);
        RawBsonDocument event;
        BsonDocument after = null;
        revision++;
        if (before == null) {
          after = document(id, revision, random);
          event = changes.insert(space.ns, after);
        } else {
          int op = random.nextInt(4);
          if (op <= 1) {
            after = before.clone();
            after.put("rev", new BsonInt32(revision));
            after.put("status", new BsonString("s" + random.nextInt(5)));
            event = changes.update(space.ns, id, after,
                new BsonDocument("rev", new BsonInt32(revision)).append("status", after.get("status")));
          } else if (op == 2) {
            after = document(id, revision, random);
            event = changes.replace(space.ns, after);
          } else {
            event = changes.delete(space.ns, id);
          }
        }
        if (after == null) {
          space.live.remove(k);
        } else {
          space.live.put(k, after);
        }
        events.add(event);
        script.event(event);
        String key = keys.renderIdOf((RawBsonDocument) event.getDocument("documentKey"));
        RawBsonDocument full = after == null ? null : (RawBsonDocument) event.getDocument("fullDocument");
        applied.add(new Applied(space.ns.collection(), key, id, ResumeToken.ofEvent(event), full, after == null));
      }
      if (transaction) {
        changes.commitTransaction();
      }
    }
    // The script ends with an idle stream, as a quiet collection does.
    stream = script.clock(clock, Duration.ofSeconds(1)).build();
  }

  /** A collection's key space: keys 0..size-1, some of them strings. */
  private static final class Keys {
    final Namespace ns;
    final int size;
    final boolean stringKeys;
    final Map<Integer, BsonDocument> live = new HashMap<>();

    Keys(Namespace ns, int size, boolean stringKeys) {
      this.ns = ns;
      this.size = size;
      this.stringKeys = stringKeys;
    }

    BsonValue id(int k) {
      return stringKeys && k % 2 == 0 ? new BsonString("k" + k) : new BsonInt32(k);
    }
  }

  private static BsonDocument document(BsonValue id, int revision, Random random) {
    BsonDocument doc = new BsonDocument("_id", id).append("rev", new BsonInt32(revision))
        .append("status", new BsonString("new"));
    if (random.nextBoolean()) {
      doc.append("nested", new BsonDocument("a", new BsonInt32(random.nextInt(1000)))
          .append("tag", new BsonString("t\u00e9" + random.nextInt(100))));
    }
    return doc;
  }

  ResumeToken lastToken() {
    return applied.get(applied.size() - 1).token();
  }

  /** The state per key of the events at or before {@code upTo} (all of them if null). */
  Map<String, KeyState> stateAt(ResumeToken upTo) {
    Map<String, KeyState> state = new HashMap<>();
    for (Applied a : applied) {
      if (upTo != null && a.token().isAfter(upTo)) {
        break;
      }
      KeyState previous = state.get(a.key());
      RawBsonDocument doc = a.delete() ? (previous == null ? null : previous.document()) : a.document();
      state.put(a.key(), new KeyState(doc, a.delete(), a.token()));
    }
    return state;
  }

  /**
   * Per key of {@code collection}, its last event at or before {@code upTo} (all if null) and
   * after {@code after} (none skipped if null): the events a checkpoint at {@code upTo} covers that
   * the change stream, not a snapshot started at {@code after}, brings.
   */
  Map<String, KeyState> stateAt(String collection, ResumeToken upTo, ResumeToken after) {
    Map<String, KeyState> state = new HashMap<>();
    for (Applied a : applied) {
      if (upTo != null && a.token().isAfter(upTo)) {
        break;
      }
      if (!a.collection().equals(collection) || (after != null && !a.token().isAfter(after))) {
        continue;
      }
      KeyState previous = state.get(a.key());
      RawBsonDocument doc = a.delete() ? (previous == null ? null : previous.document()) : a.document();
      state.put(a.key(), new KeyState(doc, a.delete(), a.token()));
    }
    return state;
  }

  /**
   * The rows the destination ends with for {@code collection}, copied by a snapshot that started at
   * {@code snapshotAt} and then replicated: per key, if an event after the start wrote it, its last
   * event (a tombstone for a delete); otherwise, if the document exists, the document as the
   * events up to the start left it, at the snapshot's position. A key deleted before the start
   * and not written after it has no row.
   */
  Map<String, KeyState> expectedRows(String collection, ResumeToken snapshotAt) {
    Map<String, KeyState> rows = new HashMap<>();
    existing.getOrDefault(collection, Map.of()).forEach((key, doc) -> rows.put(key, new KeyState(doc, false, snapshotAt)));
    for (Applied a : applied) {
      if (!a.collection().equals(collection)) {
        continue;
      }
      KeyState previous = rows.get(a.key());
      if (a.token().isAfter(snapshotAt)) {
        RawBsonDocument doc = a.delete() ? (previous == null ? null : previous.document()) : a.document();
        rows.put(a.key(), new KeyState(doc, a.delete(), a.token()));
      } else if (a.delete()) {
        rows.remove(a.key());
      } else {
        rows.put(a.key(), new KeyState(a.document(), false, snapshotAt));
      }
    }
    return rows;
  }
}
