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
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * A random workload over a bounded key space (inserts, updates, replaces, deletes, some
 * multi-document transactions, idle gaps of one to four polls with or without post-batch tokens,
 * and, when asked, collection drops) and the model of the source it leaves behind: per key the
 * last document, whether it is deleted, and the token that last wrote it. A drop changes nothing
 * in the model: the mirror does not apply control events (IGNORE passes them, PAUSE stops before
 * them until the operator passes them); after it the source's keys start again with inserts.
 */
final class RandomWorkload {

  static final Namespace NS = new Namespace("shop", "orders");

  /** One event of the script as the model sees it. */
  record Applied(String key, ResumeToken token, RawBsonDocument document, boolean delete) {}

  /** The source's final state of one key. */
  record KeyState(RawBsonDocument document, boolean deleted, ResumeToken token) {}

  final List<RawBsonDocument> events = new ArrayList<>();
  final List<Applied> applied = new ArrayList<>();
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
   * @param withDrops whether the script may drop the collection
   */
  RandomWorkload(Random random, int eventCount, int idleTimeoutPolls, boolean withDrops) {
    ChangeEvents changes = new ChangeEvents();
    ScriptedChangeStream.Builder script = ScriptedChangeStream.builder();
    int keySpace = 3 + random.nextInt(14);
    boolean stringKeys = random.nextBoolean();
    Map<Integer, BsonDocument> live = new HashMap<>();
    IdKeyRenderer keys = new IdKeyRenderer();
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
      if (withDrops && roll >= 98 && !events.isEmpty() && events.size() + 2 <= eventCount) {
        drops++;
        RawBsonDocument drop = changes.drop(NS);
        events.add(drop);
        script.event(drop);
        live.clear();
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
        int k = random.nextInt(keySpace);
        BsonValue id = stringKeys && k % 2 == 0 ? new BsonString("k" + k) : new BsonInt32(k);
        BsonDocument before = live.get(k);
        RawBsonDocument event;
        BsonDocument after = null;
        revision++;
        if (before == null) {
          after = document(id, revision, random);
          event = changes.insert(NS, after);
        } else {
          int op = random.nextInt(4);
          if (op <= 1) {
            after = before.clone();
            after.put("rev", new BsonInt32(revision));
            after.put("status", new BsonString("s" + random.nextInt(5)));
            event = changes.update(NS, id, after,
                new BsonDocument("rev", new BsonInt32(revision)).append("status", after.get("status")));
          } else if (op == 2) {
            after = document(id, revision, random);
            event = changes.replace(NS, after);
          } else {
            event = changes.delete(NS, id);
          }
        }
        if (after == null) {
          live.remove(k);
        } else {
          live.put(k, after);
        }
        events.add(event);
        script.event(event);
        String key = keys.renderIdOf((RawBsonDocument) event.getDocument("documentKey"));
        RawBsonDocument full = after == null ? null : (RawBsonDocument) event.getDocument("fullDocument");
        applied.add(new Applied(key, ResumeToken.ofEvent(event), full, after == null));
      }
      if (transaction) {
        changes.commitTransaction();
      }
    }
    // The script ends with an idle stream, as a quiet collection does.
    stream = script.clock(clock, Duration.ofSeconds(1)).build();
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
}
