package io.mongocdc.pipeline;

import io.mongocdc.decode.Namespace;
import io.mongocdc.source.scripted.ChangeEvents;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.types.ObjectId;

/** Deterministic change-event workloads for pipeline tests. Every document carries {@code n}. */
final class Workload {

  static final Namespace ORDERS = new Namespace("shop", "orders");
  static final Namespace USERS = new Namespace("shop", "users");

  private Workload() {}

  /** {@code count} inserts into shop.orders, document {@code n} = event index. */
  static List<RawBsonDocument> inserts(int count) {
    ChangeEvents events = new ChangeEvents();
    List<RawBsonDocument> out = new ArrayList<>(count);
    for (int n = 0; n < count; n++) {
      out.add(events.insert(ORDERS, document(n, n)));
    }
    return out;
  }

  /**
   * A random mix of inserts, updates, replaces and deletes over a small key space in two
   * collections, with some multi-document transactions (events sharing one cluster time).
   */
  static List<RawBsonDocument> mixed(long seed, int count) {
    Random random = new Random(seed);
    ChangeEvents events = new ChangeEvents();
    List<RawBsonDocument> out = new ArrayList<>(count);
    int txnNumber = 0;
    while (out.size() < count) {
      boolean transaction = random.nextInt(10) == 0;
      int ops = transaction ? 2 + random.nextInt(5) : 1;
      if (transaction) {
        events.beginTransaction(++txnNumber);
      }
      for (int i = 0; i < ops && out.size() < count; i++) {
        int n = out.size();
        Namespace ns = random.nextBoolean() ? ORDERS : USERS;
        int key = random.nextInt(50);
        out.add(switch (random.nextInt(4)) {
          case 0 -> events.insert(ns, document(n, key));
          case 1 -> events.update(ns, new BsonInt32(key), document(n, key),
              new BsonDocument("n", new BsonInt32(n)));
          case 2 -> events.replace(ns, document(n, key));
          default -> events.delete(ns, new BsonInt32(key));
        });
      }
      if (transaction) {
        events.commitTransaction();
      }
    }
    return out;
  }

  static BsonDocument document(int n, int key) {
    return new BsonDocument("_id", new BsonInt32(key))
        .append("n", new BsonInt32(n))
        .append("ref", new BsonString(new ObjectId(new java.util.Date(1_700_000_000_000L), n).toHexString()))
        .append("note", new BsonString("événement " + n));
  }
}
