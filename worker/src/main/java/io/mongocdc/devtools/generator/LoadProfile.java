package io.mongocdc.devtools.generator;

import io.mongocdc.decode.Namespace;
import java.util.List;

/**
 * What the development load generator produces. The same seed gives the same events.
 *
 * @param seed the random seed
 * @param collections the collections written to; the first gets ~2 KB orders, the second
 *     ~200 B users, the third products (mostly small, one in fifty ~30 KB), then round robin
 * @param keySpace distinct documents per collection at most; inserts beyond it are skipped in
 *     favour of other operations
 * @param eventsPerSecond the rate; 0 for as fast as the pipeline reads
 * @param totalEvents events to make in all; 0 for no end
 * @param retainedEvents how many past events stay available to reopen at (the generator's
 *     "oplog window"); reopening before them fails as history lost
 * @param mix relative weights of insert, update, replace and delete
 * @param transactionPercent share of operations that start a multi-document transaction
 * @param poisonEvents inserts of documents whose {@code _id} is a 3 000-character string
 *     (legal in MongoDB, too long for the destination's primary key), spread over the events;
 *     they are not in the model of what the destination must hold
 */
public record LoadProfile(
    long seed,
    List<Namespace> collections,
    int keySpace,
    int eventsPerSecond,
    long totalEvents,
    int retainedEvents,
    OperationMix mix,
    int transactionPercent,
    int poisonEvents) {

  public LoadProfile {
    if (collections == null || collections.isEmpty()) {
      throw new IllegalArgumentException("the load generator needs at least one collection");
    }
    collections = List.copyOf(collections);
    if (keySpace < 1) {
      throw new IllegalArgumentException("keySpace must be at least 1, got " + keySpace);
    }
    if (eventsPerSecond < 0) {
      throw new IllegalArgumentException("eventsPerSecond must be at least 0, got " + eventsPerSecond);
    }
    if (totalEvents < 0) {
      throw new IllegalArgumentException("totalEvents must be at least 0, got " + totalEvents);
    }
    if (retainedEvents < 1) {
      throw new IllegalArgumentException("retainedEvents must be at least 1, got " + retainedEvents);
    }
    if (transactionPercent < 0 || transactionPercent > 100) {
      throw new IllegalArgumentException("transactionPercent must be between 0 and 100, got " + transactionPercent);
    }
    if (poisonEvents < 0) {
      throw new IllegalArgumentException("poisonEvents must be at least 0, got " + poisonEvents);
    }
    if (mix == null) {
      mix = OperationMix.DEFAULT;
    }
  }

  /** Three collections in database {@code demo}, 10 000 keys each, default mix, 5 % transactions. */
  public static LoadProfile demo(long seed, int eventsPerSecond, long totalEvents) {
    return demo(seed, eventsPerSecond, totalEvents, 10_000);
  }

  /** Three collections in database {@code demo}, {@code keySpace} keys each, default mix, 5 % transactions. */
  public static LoadProfile demo(long seed, int eventsPerSecond, long totalEvents, int keySpace) {
    return new LoadProfile(seed,
        List.of(new Namespace("demo", "orders"), new Namespace("demo", "users"), new Namespace("demo", "products")),
        keySpace, eventsPerSecond, totalEvents, 200_000, OperationMix.DEFAULT, 5, 0);
  }

  /** This profile with {@code count} poison events among its events. */
  public LoadProfile withPoisonEvents(int count) {
    return new LoadProfile(seed, collections, keySpace, eventsPerSecond, totalEvents, retainedEvents, mix,
        transactionPercent, count);
  }

  /**
   * Events between two poison events: spread evenly over a bounded run, one every thousand
   * events on an endless one.
   */
  long poisonInterval() {
    return totalEvents > 0 ? Math.max(1, totalEvents / (poisonEvents + 1L)) : 1_000;
  }
}
