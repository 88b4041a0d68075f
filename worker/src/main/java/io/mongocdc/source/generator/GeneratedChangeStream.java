package io.mongocdc.source.generator;

import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * A change stream of realistic, generated events: documents of several shapes and sizes, a mix
 * of inserts, updates, replaces and deletes, occasional multi-document transactions, at a set
 * rate. It keeps a model of every collection's final state, which is what a destination fed
 * from it must hold. The same profile gives the same events (their times follow the clock).
 *
 * <p>Used by {@code mongo-cdc dev} when no MongoDB is given. Past events are kept up to
 * {@link LoadProfile#retainedEvents()}, like an oplog window, so the pipeline can reopen the
 * stream at its checkpoint after a failure.
 */
public final class GeneratedChangeStream implements ChangeStreamOpener {

  private final LoadProfile profile;
  private final Random random;
  private final ChangeEvents events;
  private final Duration maxAwaitTime;
  private final Map<Namespace, CollectionModel> models = new LinkedHashMap<>();
  // Retained events live in retained[head..]; the list is compacted when half of it is dropped.
  private final List<Retained> retained = new ArrayList<>();
  private int head;
  private Retained lastDropped;
  private final Deque<RawBsonDocument> pendingTransaction = new ArrayDeque<>();
  private long generated;
  private long dropped;
  private long startNanos = -1;
  private long txnNumber;
  private boolean stopped;

  public GeneratedChangeStream(LoadProfile profile, InstantSource clock, Duration maxAwaitTime) {
    this.profile = profile;
    this.random = new Random(profile.seed());
    this.events = new ChangeEvents(clock);
    this.maxAwaitTime = maxAwaitTime;
    for (Namespace ns : profile.collections()) {
      models.put(ns, new CollectionModel());
    }
  }

  /**
   * Fills every collection with {@code perCollection} documents that exist before the first
   * event (what a snapshot copies), and returns them. Only before any event was made.
   *
   * @throws IllegalStateException once events were generated
   */
  public synchronized Map<Namespace, List<BsonDocument>> prefill(int perCollection) {
    if (generated > 0) {
      throw new IllegalStateException("documents can only be prefilled before the first event");
    }
    Map<Namespace, List<BsonDocument>> existing = new LinkedHashMap<>();
    models.forEach((ns, model) -> {
      List<BsonDocument> documents = new ArrayList<>();
      for (int i = 0; i < perCollection && model.size() < profile.keySpace(); i++) {
        BsonDocument document = newDocument(ns, model.nextDocumentNumber());
        model.put(document.get("_id"), document);
        documents.add(document.clone());
      }
      existing.put(ns, documents);
    });
    return existing;
  }

  /** Events generated so far. */
  public synchronized long eventsGenerated() {
    return generated;
  }

  /** The token of the last event generated so far, or null before the first. */
  public synchronized ResumeToken lastEventToken() {
    return retained.size() > head ? retained.get(retained.size() - 1).token : lastDropped == null ? null : lastDropped.token;
  }

  /** True once {@link LoadProfile#totalEvents()} events were made, or generation was stopped. */
  public synchronized boolean exhausted() {
    return (stopped || profile.totalEvents() > 0 && generated >= profile.totalEvents()) && pendingTransaction.isEmpty();
  }

  /** Makes no new events after the transaction in progress: the stream goes idle, its model final. */
  public synchronized void stopGenerating() {
    stopped = true;
  }

  /** The documents each collection holds after every event generated so far. */
  public synchronized Map<Namespace, Map<BsonValue, BsonDocument>> expectedState() {
    Map<Namespace, Map<BsonValue, BsonDocument>> state = new LinkedHashMap<>();
    models.forEach((ns, model) -> state.put(ns, model.snapshot()));
    return state;
  }

  @Override
  public synchronized ChangeStreamCursor open(StreamPosition position) {
    if (lastDropped != null && lastDropped.follows(position)) {
      throw new ChangeStreamHistoryLostException("the generator no longer holds the events after " + position
          + " (it keeps the last " + profile.retainedEvents() + ")", 286, null);
    }
    long index = dropped;
    for (int i = head; i < retained.size() && !retained.get(i).follows(position); i++) {
      index++;
    }
    return new Cursor(index);
  }

  /** Makes the next event, or null if the profile is exhausted. */
  private RawBsonDocument generate() {
    if (pendingTransaction.isEmpty()) {
      if (stopped || profile.totalEvents() > 0 && generated >= profile.totalEvents()) {
        return null;
      }
      makeOperations();
    }
    RawBsonDocument event = pendingTransaction.poll();
    retain(event);
    return event;
  }

  private void makeOperations() {
    boolean transaction = random.nextInt(100) < profile.transactionPercent();
    long left = profile.totalEvents() > 0 ? profile.totalEvents() - generated : Long.MAX_VALUE;
    int operations = transaction ? (int) Math.min(2 + random.nextInt(4), left) : 1;
    if (transaction && operations > 1) {
      events.beginTransaction(++txnNumber);
    }
    for (int i = 0; i < operations; i++) {
      Namespace ns = profile.collections().get(random.nextInt(profile.collections().size()));
      pendingTransaction.add(makeOperation(ns, models.get(ns)));
      generated++;
    }
    events.commitTransaction();
  }

  private RawBsonDocument makeOperation(Namespace ns, CollectionModel model) {
    Operation op = model.size() == 0 ? Operation.INSERT : profile.mix().pick(random);
    if (op == Operation.INSERT && model.size() >= profile.keySpace()) {
      op = Operation.UPDATE;
    }
    switch (op) {
      case INSERT -> {
        BsonDocument document = newDocument(ns, model.nextDocumentNumber());
        model.put(document.get("_id"), document);
        return events.insert(ns, document);
      }
      case UPDATE -> {
        BsonValue id = model.randomKey(random);
        BsonDocument document = model.get(id).clone();
        BsonDocument changed = new BsonDocument("version", new BsonInt32(random.nextInt(1_000_000)))
            .append("updatedAt", new BsonDateTime(1_700_000_000_000L + generated));
        document.putAll(changed);
        model.put(id, document);
        return events.update(ns, id, document, changed);
      }
      case REPLACE -> {
        BsonValue id = model.randomKey(random);
        BsonDocument document = newDocument(ns, model.nextDocumentNumber());
        document.put("_id", id);
        model.put(id, document);
        return events.replace(ns, document);
      }
      default -> {
        BsonValue id = model.randomKey(random);
        model.remove(id);
        return events.delete(ns, id);
      }
    }
  }

  private BsonDocument newDocument(Namespace ns, int number) {
    int shape = profile.collections().indexOf(ns) % 3;
    BsonDocument document = switch (shape) {
      case 0 -> SampleDocuments.medium(number);
      case 1 -> SampleDocuments.small(number);
      default -> random.nextInt(50) == 0 ? SampleDocuments.large(number) : SampleDocuments.small(number)
          .append("_id", new BsonInt32(number));
    };
    // Keys of the first shape are ObjectIds from the document number; vary them per collection.
    if (shape == 0) {
      document.put("_id", new BsonString(ns.collection() + "-" + number));
    }
    return document;
  }

  private void retain(RawBsonDocument event) {
    ResumeToken token = ResumeToken.fromDocument(event.getDocument("_id"));
    retained.add(new Retained(event, token, event.getTimestamp("clusterTime")));
    while (retained.size() - head > profile.retainedEvents()) {
      lastDropped = retained.get(head);
      retained.set(head++, null);
      dropped++;
    }
    if (head > retained.size() / 2 && head > 1024) {
      retained.subList(0, head).clear();
      head = 0;
    }
  }

  private synchronized RawBsonDocument eventAt(long index) {
    long offset = index - dropped;
    if (offset < 0) {
      throw new ChangeStreamHistoryLostException("the generator no longer holds event " + index + " (it keeps the last "
          + profile.retainedEvents() + ")", 286, null);
    }
    return retained.get(head + (int) offset).event;
  }

  /** Waits until the next event is due at the profile's rate; false if it is not due within the await time. */
  private boolean awaitDue() throws InterruptedException {
    long due;
    synchronized (this) {
      if (startNanos < 0) {
        startNanos = System.nanoTime();
      }
      if (profile.eventsPerSecond() == 0) {
        return true;
      }
      due = startNanos + (long) (generated * 1e9 / profile.eventsPerSecond());
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

  private synchronized long retainedEnd() {
    return dropped + retained.size() - head;
  }

  private final class Cursor implements ChangeStreamCursor {
    private long next;
    private ResumeToken postBatchToken;

    Cursor(long next) {
      this.next = next;
    }

    @Override
    public RawBsonDocument tryNext() throws InterruptedException {
      if (next < retainedEnd()) {
        RawBsonDocument event = eventAt(next++);
        postBatchToken = ResumeToken.fromDocument(event.getDocument("_id"));
        return event;
      }
      if (exhausted()) {
        park(maxAwaitTime.toNanos());
        postBatchToken = highWaterMark();
        return null;
      }
      if (!awaitDue()) {
        postBatchToken = highWaterMark();
        return null;
      }
      RawBsonDocument event;
      synchronized (GeneratedChangeStream.this) {
        event = generate();
        next = retainedEnd();
      }
      if (event == null) {
        return null;
      }
      postBatchToken = ResumeToken.fromDocument(event.getDocument("_id"));
      return event;
    }

    @Override
    public ResumeToken postBatchResumeToken() {
      return postBatchToken;
    }

    @Override
    public void close() {}
  }

  /** A post-batch token later than every event so far; never while a transaction is half sent. */
  private synchronized ResumeToken highWaterMark() {
    return pendingTransaction.isEmpty() ? events.highWaterMark() : null;
  }

  private record Retained(RawBsonDocument event, ResumeToken token, BsonTimestamp clusterTime) {

    boolean follows(StreamPosition position) {
      return position instanceof StreamPosition.AfterToken after
          ? token.isAfter(after.token())
          : clusterTime.compareTo(((StreamPosition.AtOperationTime) position).clusterTime()) >= 0;
    }
  }
}
