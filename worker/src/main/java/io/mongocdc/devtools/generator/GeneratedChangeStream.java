package io.mongocdc.devtools.generator;

import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.locks.LockSupport;
import java.nio.charset.StandardCharsets;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * A change stream of realistic, generated events: documents of several shapes and sizes, a mix
 * of inserts, updates, replaces and deletes, occasional multi-document transactions, at a set
 * rate. It keeps a model of every collection's state, which is what a destination fed from it
 * must hold, in memory that grows with the events and not with the collections (see {@link
 * CollectionModel}): a key space of millions of documents costs no more than one of thousands. The same profile gives the same events; their times (and so their resume
 * tokens) follow the clock, or, for a {@link #replayable} stream, only their place in the stream.
 *
 * <p>Used by {@code mongo-cdc dev} when no MongoDB is given, and by workers for a mirror whose
 * source peer is a {@code generator:} URI (see {@link GeneratorUri}). Past events are kept up to
 * {@link LoadProfile#retainedEvents()}, like an oplog window, so the pipeline can reopen the
 * stream at its checkpoint after a failure. Events are made when a cursor asks for them, at the
 * profile's rate; opening the stream at a position not reached yet makes the events up to it at
 * once, so a cursor's first event is always the one right after its position.
 *
 * <p>It shares the JVM with the pipeline it feeds, so it must cost far less per event than the
 * pipeline does: events are written straight as BSON bytes, and an update's post-image is the
 * key's document written again with its two update fields patched in.
 */
public final class GeneratedChangeStream implements ChangeStreamOpener {

  private final LoadProfile profile;
  private static final int POISON_ID_LENGTH = 3_000;
  // 1 MiB: a small window's events in few, small arrays.
  private static final int SMALL_SLABS = 1 << 20;

  private final Random random;
  // Session ids come from their own sequence, so the operations do not depend on transactions' ids.
  private final Random sessions;
  private final ClusterClock clock;
  private final Duration maxAwaitTime;
  private final List<Namespace> namespaces;
  private final CollectionModel[] models;
  private final ChangeEventWriter writer;
  private final EventWindow window;
  private final Deque<PendingEvent> pendingTransaction = new ArrayDeque<>();
  private long generated;
  private long startNanos = -1;
  // The events made before the rate's clock started: made at once, to reach a cursor's position.
  private long rateOrigin;
  // The wall clock when the rate's clock started: due times in wall time count from it.
  private long startWallMillis;
  private long txnNumber;
  private int poisonMade;
  private boolean stopped;

  /** A stream whose event times follow {@code clock}: what one {@code mongo-cdc dev} process feeds its mirror. */
  public GeneratedChangeStream(LoadProfile profile, InstantSource clock, Duration maxAwaitTime) {
    this(profile, ClusterClock.following(clock), new EventSlabs(), maxAwaitTime);
  }

  /**
   * A stream whose events, cluster times and resume tokens are a function of the profile and of
   * each event's place in the stream alone: event {@code n} has cluster time {@code startMillis + n}
   * milliseconds (counting the ticks of transactions and idle post-batch tokens do not take),
   * whatever the wall clock, the rate, or when and where the stream is opened. Any process that
   * makes it from the same profile serves the same stream, so a mirror can move between workers.
   * Its events are kept in small slabs, for a small window in a small heap.
   */
  public static GeneratedChangeStream replayable(LoadProfile profile, long startMillis, Duration maxAwaitTime) {
    return new GeneratedChangeStream(profile, ClusterClock.simulated(startMillis), new EventSlabs(SMALL_SLABS),
        maxAwaitTime);
  }

  private GeneratedChangeStream(LoadProfile profile, ClusterClock clock, EventSlabs slabs, Duration maxAwaitTime) {
    this.profile = profile;
    this.random = new Random(profile.seed());
    this.sessions = new Random(~profile.seed());
    this.clock = clock;
    this.writer = new ChangeEventWriter(slabs);
    this.maxAwaitTime = maxAwaitTime;
    this.namespaces = profile.collections();
    this.models = new CollectionModel[namespaces.size()];
    for (int i = 0; i < models.length; i++) {
      models[i] = new CollectionModel(new CollectionFormat(namespaces.get(i), i, profile.seed()), profile.keySpace());
    }
    this.window = new EventWindow(profile.retainedEvents());
  }

  /**
   * Makes every collection hold {@code perCollection} documents (at most the key space) that
   * exist before the first event: what a snapshot copies. They are made when read, not stored.
   * Only before any event was made.
   *
   * @throws IllegalStateException once events were generated
   */
  public synchronized void prefill(int perCollection) {
    if (generated > 0) {
      throw new IllegalStateException("documents can only be prefilled before the first event");
    }
    for (CollectionModel model : models) {
      model.prefill(perCollection);
    }
  }

  /** The collections as they are now, after every event generated so far, for a snapshot or a comparison to read. */
  public GeneratedCollections collections(long seed) {
    return new GeneratedCollections(this, seed);
  }

  /**
   * Keys the models store because events changed them, over all collections: what the generator
   * holds besides its window of events. It grows with the events, never with the collections.
   */
  public synchronized long storedKeys() {
    long stored = 0;
    for (CollectionModel model : models) {
      stored += model.storedKeys();
    }
    return stored;
  }

  /** Runs {@code read} on the model of {@code collection} (null if there is none) under the stream's lock. */
  synchronized <T> T read(String collection, java.util.function.Function<CollectionModel, T> read) {
    for (int c = 0; c < models.length; c++) {
      if (namespaces.get(c).collection().equals(collection)) {
        return read.apply(models[c]);
      }
    }
    return read.apply(null);
  }

  /** The collections' names, in the generator's order. */
  List<Namespace> namespaces() {
    return namespaces;
  }

  /** Poison events (see {@link LoadProfile#poisonEvents()}) generated so far. */
  public synchronized int poisonEventsGenerated() {
    return poisonMade;
  }

  /** Events generated so far. */
  public synchronized long eventsGenerated() {
    return generated;
  }

  /** The token of the last event generated so far, or null before the first. */
  public synchronized ResumeToken lastEventToken() {
    return window.lastToken();
  }

  /**
   * The cluster time of the oldest event this stream can still be opened at, or null while it holds
   * every event it made (its window dropped none).
   */
  public synchronized BsonTimestamp oldestHeld() {
    long oldest = window.oldestClusterTimeAfterDrops();
    return oldest == 0 ? null : new BsonTimestamp(oldest);
  }

  /** True once {@link LoadProfile#totalEvents()} events were made, or generation was stopped. */
  public synchronized boolean exhausted() {
    return endReached() && pendingTransaction.isEmpty();
  }

  /** Makes no new events after the transaction in progress: the stream goes idle, its model final. */
  public synchronized void stopGenerating() {
    stopped = true;
  }

  /**
   * Starts the rate's clock again at the next event due: the events made from then on come at
   * the profile's rate from that moment, however long the stream was idle before (a stream kept
   * between batches would otherwise catch up on the time it was not read, in a burst).
   */
  synchronized void restartRate() {
    startNanos = -1;
  }

  /**
   * The documents each collection holds after every event generated so far, all in memory: for
   * tests of small collections. {@link #collections} reads them a batch at a time.
   */
  public Map<Namespace, Map<BsonValue, BsonDocument>> expectedState() {
    return collections(0).documents();
  }

  /**
   * Makes every event of a bounded profile now, without a cursor: then {@link #expectedState()}
   * is the final state a mirror of the stream ends in, and {@link #lastEventToken()} the last
   * position it reaches.
   *
   * @throws IllegalStateException if the profile has no end
   */
  public synchronized void generateAll() {
    if (profile.totalEvents() == 0) {
      throw new IllegalStateException("an endless stream has no final state");
    }
    while (generate() != null) {
      // on to the end
    }
  }

  /**
   * A cursor whose first event is the first one after (for an operation time: at) the position.
   * When no event generated so far is, the events up to the first one that is are made now.
   *
   * @throws io.mongocdc.source.ChangeStreamHistoryLostException if events after the position
   *     fell out of the window
   */
  @Override
  public synchronized ChangeStreamCursor open(StreamPosition position) {
    long first = window.firstAfter(position);
    if (first == window.end()) {
      long positionTime = position.clusterTimeOrZero().getValue();
      for (RawBsonDocument made = generate(); made != null; made = generate()) {
        // An event of an earlier cluster time is before the position: no need to read its token.
        if (Long.compareUnsigned(window.lastClusterTime(), positionTime) >= 0 && window.lastFollows(position)) {
          return new Cursor(window.end() - 1);
        }
      }
      // The end came first: the position is at or after the last event.
      first = window.end();
    }
    return new Cursor(first);
  }

  private boolean endReached() {
    return stopped || profile.totalEvents() > 0 && generated >= profile.totalEvents();
  }

  /** Makes the next event, or null if the profile is exhausted. */
  private RawBsonDocument generate() {
    if (pendingTransaction.isEmpty()) {
      if (endReached()) {
        return null;
      }
      makeOperations();
    }
    PendingEvent next = pendingTransaction.poll();
    window.add(next.event, next.clusterTime);
    return next.event;
  }

  private void makeOperations() {
    if (poisonMade < profile.poisonEvents() && generated >= (poisonMade + 1L) * profile.poisonInterval()) {
      clock.tickAt(dueWallMillis());
      long clusterTime = clock.clusterTime();
      pendingTransaction.add(new PendingEvent(poisonInsert(namespaces.get(poisonMade % namespaces.size()), clusterTime),
          clusterTime));
      poisonMade++;
      generated++;
      return;
    }
    boolean transactional = random.nextInt(100) < profile.transactionPercent();
    long left = profile.totalEvents() > 0 ? profile.totalEvents() - generated : Long.MAX_VALUE;
    int operations = transactional ? (int) Math.min(2 + random.nextInt(4), left) : 1;
    Transaction transaction = null;
    if (transactional && operations > 1) {
      // A transaction's events share the cluster time of its commit.
      clock.tickAt(dueWallMillis());
      transaction = new Transaction(++txnNumber, sessionId());
    }
    for (int i = 0; i < operations; i++) {
      CollectionModel model = models[random.nextInt(models.length)];
      if (transaction == null) {
        clock.tickAt(dueWallMillis());
      }
      long clusterTime = clock.clusterTime();
      pendingTransaction.add(new PendingEvent(makeOperation(model, transaction, clusterTime), clusterTime));
      generated++;
    }
  }

  /** Makes one operation on the model and writes its event. */
  private RawBsonDocument makeOperation(CollectionModel model, Transaction transaction, long clusterTime) {
    Operation op = model.size() == 0 ? Operation.INSERT : profile.mix().pick(random);
    if (op == Operation.INSERT && !model.canInsert()) {
      op = Operation.UPDATE;
    }
    CollectionFormat format = model.format();
    int opIndex = transaction == null ? 0 : transaction.nextOpIndex();
    switch (op) {
      case INSERT -> {
        int id = model.insert();
        writer.start(ChangeEventWriter.INSERT, format, id, clusterTime, clock.wallMillis(), opIndex);
        format.writeDocument(writer.fullDocument(), id, model.content(id));
        return writer.finish(format, id, transaction);
      }
      case UPDATE -> {
        int id = model.randomLiveKey(random);
        int version = random.nextInt(1_000_000);
        long updatedAt = 1_700_000_000_000L + generated;
        byte[] document = model.update(id, version, updatedAt);
        writer.start(ChangeEventWriter.UPDATE, format, id, clusterTime, clock.wallMillis(), opIndex);
        writer.fullDocument().raw(document, 0, BsonBytes.int32At(document, 0));
        return writer.finishUpdate(format, id, version, updatedAt, transaction);
      }
      case REPLACE -> {
        int id = model.randomLiveKey(random);
        writer.start(ChangeEventWriter.REPLACE, format, id, clusterTime, clock.wallMillis(), opIndex);
        format.writeDocument(writer.fullDocument(), id, model.replace(id));
        return writer.finish(format, id, transaction);
      }
      default -> {
        int id = model.randomLiveKey(random);
        writer.start(ChangeEventWriter.DELETE, format, id, clusterTime, clock.wallMillis(), opIndex);
        model.delete(id);
        return writer.finish(format, id, transaction);
      }
    }
  }

  /**
   * An insert of a document whose {@code _id} is a 3 000-character string: legal in MongoDB, too
   * long for the destination's primary key. Not in the model: the destination cannot hold it.
   */
  private RawBsonDocument poisonInsert(Namespace ns, long clusterTime) {
    StringBuilder id = new StringBuilder(POISON_ID_LENGTH).append("poison-").append(poisonMade).append('-');
    while (id.length() < POISON_ID_LENGTH) {
      id.append(Long.toString(random.nextLong() & Long.MAX_VALUE, 36));
    }
    BsonString key = new BsonString(id.substring(0, POISON_ID_LENGTH));
    BsonDocument document = new BsonDocument("_id", key).append("poison", BsonBoolean.TRUE);
    BsonTimestamp time = new BsonTimestamp(clusterTime);
    UUID collection = UUID.nameUUIDFromBytes(ns.fullName().getBytes(StandardCharsets.UTF_8));
    BsonDocument event = new BsonDocument("_id",
        new BsonDocument("_data", new BsonString(ResumeTokens.event(time, 0, collection, key).data())))
        .append("operationType", new BsonString("insert"))
        .append("clusterTime", time)
        .append("wallTime", new BsonDateTime(clock.wallMillis()))
        .append("fullDocument", document)
        .append("ns", new BsonDocument("db", new BsonString(ns.database())).append("coll",
            new BsonString(ns.collection())))
        .append("documentKey", new BsonDocument("_id", key));
    return new RawBsonDocument(event, new BsonDocumentCodec());
  }

  /** A random (version 4) session UUID, from the seed. */
  private UUID sessionId() {
    long high = sessions.nextLong() & ~0xF000L | 0x4000L;
    long low = sessions.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L;
    return new UUID(high, low);
  }

  /** When the next event is due at the profile's rate ({@link System#nanoTime}); once the rate's clock started. */
  private long dueNanos() {
    return startNanos + (long) ((generated - rateOrigin) * 1e9 / profile.eventsPerSecond());
  }

  /**
   * The wall time the next event was due at the profile's rate, which it is stamped with: a
   * reader that falls behind the rate sees events as old as they would be on a real server. No
   * due time (full speed, or before the rate's clock started): the clock's now.
   */
  private long dueWallMillis() {
    if (profile.eventsPerSecond() == 0 || startNanos < 0) {
      return ClusterClock.NOW;
    }
    return startWallMillis + (long) ((generated - rateOrigin) * 1e3 / profile.eventsPerSecond());
  }

  /** Waits until the next event is due at the profile's rate; false if it is not due within the await time. */
  private boolean awaitDue() throws InterruptedException {
    long due;
    synchronized (this) {
      if (startNanos < 0) {
        startNanos = System.nanoTime();
        startWallMillis = clock.nowMillis();
        rateOrigin = generated;
      }
      due = dueNanos();
    }
    long wait = due - System.nanoTime();
    if (wait > maxAwaitTime.toNanos()) {
      park(maxAwaitTime.toNanos());
      return false;
    }
    if (wait > 0) {
      park(wait);
    }
    return true;
  }

  private static void park(long nanos) throws InterruptedException {
    LockSupport.parkNanos(nanos);
    if (Thread.interrupted()) {
      throw new InterruptedException("generated change stream interrupted");
    }
  }

  /** A post-batch token later than every event so far; never while a transaction is half sent. */
  private synchronized ResumeToken highWaterMark() {
    if (!pendingTransaction.isEmpty()) {
      return null;
    }
    return ResumeTokens.highWaterMark(new BsonTimestamp(clock.highWaterMark()));
  }

  private record PendingEvent(RawBsonDocument event, long clusterTime) {}

  private final class Cursor implements ChangeStreamCursor {
    private long next;
    // The last event's token is read from it only when asked for: the pipeline asks when idle.
    private RawBsonDocument lastEvent;
    private ResumeToken postBatchToken;

    Cursor(long next) {
      this.next = next;
    }

    @Override
    public RawBsonDocument tryNext() throws InterruptedException {
      synchronized (GeneratedChangeStream.this) {
        if (next < window.end()) {
          return delivered(window.get(next++));
        }
        if (profile.eventsPerSecond() == 0 && !exhausted()) {
          return generateNext();
        }
      }
      if (exhausted()) {
        park(maxAwaitTime.toNanos());
        idle(highWaterMark());
        return null;
      }
      if (!awaitDue()) {
        idle(highWaterMark());
        return null;
      }
      synchronized (GeneratedChangeStream.this) {
        return generateNext();
      }
    }

    private RawBsonDocument generateNext() {
      RawBsonDocument event = generate();
      next = window.end();
      return event == null ? null : delivered(event);
    }

    private RawBsonDocument delivered(RawBsonDocument event) {
      lastEvent = event;
      postBatchToken = null;
      return event;
    }

    private void idle(ResumeToken highWaterMark) {
      lastEvent = null;
      postBatchToken = highWaterMark;
    }

    @Override
    public boolean eventReady() {
      synchronized (GeneratedChangeStream.this) {
        if (next < window.end() || !pendingTransaction.isEmpty()) {
          return true;
        }
        if (exhausted()) {
          return false;
        }
        return profile.eventsPerSecond() == 0 || startNanos < 0 || dueNanos() <= System.nanoTime();
      }
    }

    @Override
    public ResumeToken postBatchResumeToken() {
      if (lastEvent != null) {
        postBatchToken = ResumeToken.ofEvent(lastEvent);
        lastEvent = null;
      }
      return postBatchToken;
    }

    @Override
    public void close() {}
  }
}
