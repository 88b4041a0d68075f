package io.mongocdc.devtools.generator;

import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ForwardingChangeStreamCursor;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.MirrorConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonTimestamp;

/**
 * The source port of a worker for mirrors whose source peer is a {@link GeneratorUri}: the load
 * generator in place of a MongoDB. The events are the URI's alone (see {@link
 * GeneratedChangeStream#replayable}), so every worker that serves a mirror serves it the same
 * stream, from wherever its checkpoint is.
 *
 * <p>Each mirror gets its own generator on this worker. Between batches it is kept, so the next
 * batch reopens inside its window; a position before the window (a retry from an older
 * checkpoint, or the first batch of a mirror that moved here from another worker) gets a new
 * generator that makes the stream again from its start up to the position, which costs time but
 * never changes an event. Two cursors open at once (a batch retried while the abandoned one still
 * runs) each have their own.
 */
public final class GeneratorMirrorSourceFactory implements MirrorSourceFactory {

  /** How long an idle cursor waits for an event: the pipeline's view of the server's await time. */
  static final Duration MAX_AWAIT_TIME = Duration.ofMillis(200);

  private final PeerRegistry peers;
  private final Map<String, ReplayableStream> streams = new ConcurrentHashMap<>();
  private final Map<GeneratorUri, InMemorySnapshotSource> snapshots = new ConcurrentHashMap<>();

  public GeneratorMirrorSourceFactory(PeerRegistry peers) {
    this.peers = peers;
  }

  /**
   * Checks the peer's URI and that the mirror reads what the generator makes: its database, and
   * all of its collections (or none named, which means all).
   *
   * @throws InvalidMirrorConfigurationException naming what is wrong
   */
  @Override
  public void validate(MirrorConfig mirror) {
    GeneratorUri uri = uri(mirror);
    if (!uri.database().equals(mirror.sourceDatabase())) {
      throw new InvalidMirrorConfigurationException("the generator peer " + mirror.sourcePeer() + " makes database "
          + uri.database() + ", not " + mirror.sourceDatabase() + "; create the mirror with --database "
          + uri.database());
    }
    List<String> names = uri.collectionNames();
    if (!mirror.collections().isEmpty()
        && !(mirror.collections().size() == names.size() && mirror.collections().containsAll(names))) {
      throw new InvalidMirrorConfigurationException("the generator peer " + mirror.sourcePeer()
          + " makes the collections " + String.join(", ", names) + "; a mirror of it takes all of them (name none,"
          + " or all), not " + String.join(", ", mirror.collections()));
    }
  }

  @Override
  public ChangeStreamOpener openerFor(MirrorConfig mirror) {
    GeneratorUri uri = uri(mirror);
    // Keyed by the URI too: a peers file edited to another stream is another stream.
    return streams.computeIfAbsent(mirror.name() + "\n" + uri.toUri(), key -> new ReplayableStream(uri));
  }

  /** The documents the generator's collections hold before its first event; closing it is a no-op. */
  @Override
  public SnapshotSource snapshotSource(MirrorConfig mirror) {
    return snapshots.computeIfAbsent(uri(mirror), uri -> {
      InMemorySnapshotSource existing = new InMemorySnapshotSource(uri.seed());
      uri.collectionNames().forEach(existing::createCollection);
      uri.existingDocuments().forEach((ns, documents) -> existing.putAll(ns.collection(), documents));
      return existing;
    });
  }

  /** Before the generator's first event: a new mirror reads the whole stream. */
  @Override
  public StreamPosition currentPosition(MirrorConfig mirror) {
    uri(mirror);
    return StreamPosition.atOperationTime(new BsonTimestamp(0, 0));
  }

  private GeneratorUri uri(MirrorConfig mirror) {
    String connectionString = peers.resolve(mirror.sourcePeer()).connectionString();
    try {
      return GeneratorUri.parse(connectionString);
    } catch (IllegalArgumentException e) {
      throw new InvalidMirrorConfigurationException("the generator peer " + mirror.sourcePeer() + "'s URI "
          + connectionString + " is not usable: " + e.getMessage());
    }
  }

  /** One mirror's stream on this worker: the generator kept between batches, or a new one. */
  static final class ReplayableStream implements ChangeStreamOpener {

    private final GeneratorUri uri;
    private final AtomicReference<GeneratedChangeStream> idle = new AtomicReference<>();

    ReplayableStream(GeneratorUri uri) {
      this.uri = uri;
    }

    @Override
    public ChangeStreamCursor open(StreamPosition position) {
      GeneratedChangeStream generator = idle.getAndSet(null);
      ChangeStreamCursor cursor = null;
      if (generator != null) {
        // The rate applies to this cursor from now: the batches between are not caught up on.
        generator.restartRate();
        try {
          cursor = generator.open(position);
        } catch (ChangeStreamHistoryLostException behindTheWindow) {
          generator = null;
        }
      }
      if (generator == null) {
        // Made again from the start: this history is never lost.
        generator = uri.newStream(MAX_AWAIT_TIME);
        cursor = generator.open(position);
      }
      return new ParkingCursor(cursor, generator);
    }

    /** Keeps the generator for the next batch once the cursor is closed. */
    private final class ParkingCursor extends ForwardingChangeStreamCursor {
      private final GeneratedChangeStream generator;
      private final AtomicBoolean closed = new AtomicBoolean();

      ParkingCursor(ChangeStreamCursor cursor, GeneratedChangeStream generator) {
        super(cursor);
        this.generator = generator;
      }

      @Override
      public void close() {
        super.close();
        // Once: a cursor closed twice must not hand its generator to two later cursors.
        if (closed.compareAndSet(false, true)) {
          idle.set(generator);
        }
      }
    }
  }
}
