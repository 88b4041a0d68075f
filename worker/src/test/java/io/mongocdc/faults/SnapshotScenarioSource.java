package io.mongocdc.faults;

import io.mongocdc.activities.Fixtures;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ForwardingChangeStreamCursor;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ScriptedSnapshotSource;
import io.mongocdc.workflows.model.MirrorConfig;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * The source of a scenario with snapshots on: the workload's change stream, restricted to the
 * collections the mirror watches as a server's {@code $match} on {@code ns.coll} restricts it, and
 * the workload's collections as a snapshot reads them (a {@link ScriptedSnapshotSource}).
 *
 * <p>The documents start as the workload's documents before its first event, and the events are
 * applied to them in stream order as the source moves on: up to the furthest event any change
 * stream cursor has read (the source is never behind its own oplog), and up to where the driver
 * moves it ({@link #advanceTo}, changes made after the starting point, before or while a partition
 * is copied). So a snapshot reads each document as it was at some time at or after its start, as
 * a {@code find} on a live collection does.
 *
 * <p>Opens of a collection are numbered; a gate planned for the n-th open is armed on that open's
 * range just before it ({@link #arm}), with the thread that opened it, so the driver knows which
 * attempt waits there.
 */
final class SnapshotScenarioSource implements MirrorSourceFactory {

  private final RandomWorkload workload;
  private final PeerRegistry peers;
  private final ScriptedSnapshotSource documents;
  /** Told of every open before it happens: the scenario checks that no finished partition is read again. */
  private final BiConsumer<String, IdRange> beforeOpen;
  private final Map<String, Map<Integer, FaultInjectionTest.PlannedGate>> armed = new ConcurrentHashMap<>();
  private final Map<String, Integer> opens = new ConcurrentHashMap<>();
  /** Events of the workload applied to the documents so far. */
  private int appliedUpTo;
  /** A partition whose reads fail again and again: its collection, the open that picks it, how often. */
  private String failingCollection;
  private int failingOpen;
  private int failuresLeft;
  private IdRange failingRange;
  /** Where the driver has moved the source to (null: not moved). */
  private ResumeToken movedTo;
  /** The furthest event any change stream cursor read. */
  private ResumeToken furthestRead;

  SnapshotScenarioSource(RandomWorkload workload, PeerRegistry peers, long seed, BiConsumer<String, IdRange> beforeOpen) {
    this.workload = workload;
    this.peers = peers;
    this.beforeOpen = beforeOpen;
    this.documents = new ScriptedSnapshotSource(seed);
    workload.existing.forEach((collection, docs) -> {
      documents.createCollection(collection);
      documents.putAll(collection, List.copyOf(docs.values()));
    });
  }

  /** Arms {@code gate} on the {@code open}-th open of {@code collection}, at its {@code gate.nth}-th document. */
  void arm(String collection, int open, FaultInjectionTest.PlannedGate gate) {
    armed.computeIfAbsent(collection, c -> new ConcurrentHashMap<>()).put(open, gate);
  }

  /**
   * The partition of the {@code open}-th open of {@code collection} fails to read, at its first
   * document, on that open and on the next {@code times - 1} opens of it.
   */
  synchronized void failRepeatedly(String collection, int open, int times) {
    failingCollection = collection;
    failingOpen = open;
    failuresLeft = times;
  }

  /** Whether every planned failure of {@link #failRepeatedly} was armed. */
  synchronized boolean failuresSpent() {
    return failingCollection != null && failuresLeft == 0;
  }

  /** The source moves on to {@code token}: every event up to it has happened. */
  synchronized void advanceTo(ResumeToken token) {
    if (movedTo == null || token.isAfter(movedTo)) {
      movedTo = token;
    }
    catchUp();
  }

  /** Events applied to the documents. */
  synchronized int eventsApplied() {
    return appliedUpTo;
  }

  private synchronized void read(ResumeToken token) {
    if (furthestRead == null || token.isAfter(furthestRead)) {
      furthestRead = token;
    }
  }

  /** Applies the events up to the furthest of where the driver moved the source and what a cursor read. */
  private synchronized void catchUp() {
    ResumeToken upTo = furthestRead == null ? movedTo
        : movedTo == null || furthestRead.isAfter(movedTo) ? furthestRead : movedTo;
    if (upTo == null) {
      return;
    }
    List<RandomWorkload.Applied> events = workload.applied;
    while (appliedUpTo < events.size() && !events.get(appliedUpTo).token().isAfter(upTo)) {
      RandomWorkload.Applied a = events.get(appliedUpTo++);
      if (a.delete()) {
        documents.delete(a.collection(), a.id());
      } else {
        documents.put(a.collection(), a.document());
      }
    }
  }

  private synchronized DocumentCursor open(String collection, IdRange range, BsonDocument filter, int batchSize) {
    catchUp();
    beforeOpen.accept(collection, range);
    int n = opens.merge(collection, 1, Integer::sum);
    FaultInjectionTest.PlannedGate gate = armed.getOrDefault(collection, Map.of()).get(n);
    if (gate != null) {
      gate.thread = Thread.currentThread();
      documents.gateAt(collection, range, gate.nth, gate.gate);
    }
    if (collection.equals(failingCollection)) {
      if (n == failingOpen) {
        failingRange = range;
      }
      if (range.equals(failingRange) && failuresLeft > 0) {
        failuresLeft--;
        documents.failAt(collection, range, 1, new IllegalStateException("injected: the source's connection was reset"));
      }
    }
    return documents.open(collection, range, filter, batchSize);
  }

  @Override
  public void validate(MirrorConfig mirror) {
    peers.resolve(mirror.sourcePeer());
  }

  @Override
  public ChangeStreamOpener openerFor(MirrorConfig mirror) {
    peers.resolve(mirror.sourcePeer());
    Set<String> watched = Set.copyOf(mirror.collections());
    return position -> new Watching(workload.stream.open(position), watched);
  }

  @Override
  public SnapshotSource snapshotSource(MirrorConfig mirror) {
    return new SnapshotSource() {
      @Override
      public List<String> collectionNames() {
        return documents.collectionNames();
      }

      @Override
      public long estimatedCount(String collection) {
        synchronized (SnapshotScenarioSource.this) {
          catchUp();
          return documents.estimatedCount(collection);
        }
      }

      @Override
      public List<BsonValue> sampleIds(String collection, int size) {
        synchronized (SnapshotScenarioSource.this) {
          catchUp();
          return documents.sampleIds(collection, size);
        }
      }

      @Override
      public DocumentCursor open(String collection, IdRange range, BsonDocument filter, int batchSize) {
        return SnapshotScenarioSource.this.open(collection, range, filter, batchSize);
      }

      @Override
      public void close() {}
    };
  }

  /** The starting point a new mirror takes: before every event of the workload. */
  @Override
  public StreamPosition currentPosition(MirrorConfig mirror) {
    return Fixtures.BEFORE_EVENTS;
  }

  /** Snapshot cursors opened and not closed yet. */
  int openCursors() {
    return documents.openCursorCount();
  }

  /**
   * A cursor of the script that yields only events of the watched collections, as the server's
   * filter does; its post-batch token moves past the others, as the server's does.
   */
  private final class Watching extends ForwardingChangeStreamCursor {
    private final Set<String> watched;

    Watching(ChangeStreamCursor cursor, Set<String> watched) {
      super(cursor);
      this.watched = watched;
    }

    @Override
    public RawBsonDocument tryNext() throws InterruptedException {
      while (true) {
        RawBsonDocument event = delegate.tryNext();
        if (event == null) {
          return null;
        }
        read(ResumeToken.ofEvent(event));
        BsonDocument ns = event.containsKey("ns") ? event.getDocument("ns") : null;
        if (ns == null || !ns.containsKey("coll") || watched.contains(ns.getString("coll").getValue())) {
          return event;
        }
      }
    }
  }
}
