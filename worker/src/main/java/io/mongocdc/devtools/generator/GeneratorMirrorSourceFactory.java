package io.mongocdc.devtools.generator;

import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.ports.StartPointCheck;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ForwardingChangeStreamCursor;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.MirrorConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonTimestamp;

/**
 * The source port for the load generator in place of a MongoDB, in two forms:
 *
 * <ul>
 *   <li>{@link #GeneratorMirrorSourceFactory(PeerRegistry)}: a worker's mirrors whose source peer is
 *       a {@link GeneratorUri}. The events are the URI's alone (see {@link
 *       GeneratedChangeStream#replayable}), so every worker that serves a mirror serves it the same
 *       stream, from wherever its checkpoint is. Each mirror gets its own generator on this worker.
 *       Between batches it is kept, so the next batch reopens inside its window; a position before
 *       the window (a retry from an older checkpoint, or the first batch of a mirror that moved here
 *       from another worker) gets a new generator that makes the stream again from its start up to
 *       the position, which costs time but never changes an event. Two cursors open at once (a
 *       batch retried while the abandoned one still runs) each have their own.
 *   <li>{@link #running}: {@code mongo-cdc dev}'s one generator running in this process, whose
 *       collections the snapshot and verify read as they are at the time of the read.
 * </ul>
 *
 * <p>Either way a new mirror starts before the generator's first event and reads its whole stream.
 */
public final class GeneratorMirrorSourceFactory implements MirrorSourceFactory {

  /** How long an idle cursor waits for an event: the pipeline's view of the server's await time. */
  static final Duration MAX_AWAIT_TIME = Duration.ofMillis(200);

  private static final StreamPosition BEFORE_THE_FIRST_EVENT = StreamPosition.atOperationTime(new BsonTimestamp(0, 0));

  private final Generators generators;

  /** For the mirrors of {@code generator:} peers, resolved through {@code peers}. */
  public GeneratorMirrorSourceFactory(PeerRegistry peers) {
    this(new FromUris(peers));
  }

  private GeneratorMirrorSourceFactory(Generators generators) {
    this.generators = generators;
  }

  /**
   * For a generator running in this process: every mirror reads {@code stream}.
   *
   * @param seed makes the snapshot's partition plans repeatable
   */
  public static GeneratorMirrorSourceFactory running(GeneratedChangeStream stream, long seed) {
    return new GeneratorMirrorSourceFactory(new Running(stream, stream.collections(seed)));
  }

  /**
   * Checks that the mirror reads what the generator makes.
   *
   * @throws InvalidMirrorConfigurationException naming what is wrong
   */
  @Override
  public void validate(MirrorConfig mirror) {
    generators.validate(mirror);
  }

  @Override
  public ChangeStreamOpener openerFor(MirrorConfig mirror) {
    return generators.opener(mirror);
  }

  @Override
  public SnapshotSource snapshotSource(MirrorConfig mirror) {
    return generators.snapshot(mirror);
  }

  /** Before the generator's first event: a new mirror reads the whole stream. */
  @Override
  public StreamPosition currentPosition(MirrorConfig mirror) {
    generators.requireUsable(mirror);
    return BEFORE_THE_FIRST_EVENT;
  }

  /**
   * Judged by the oldest event the generator holds and the wall clock, without opening the stream:
   * opening it at a point it has not reached would make the events up to there at once.
   */
  @Override
  public void requireHistoryHolds(MirrorConfig mirror, StreamPosition start) {
    generators.requireUsable(mirror);
    StreamPosition now = StreamPosition.atOperationTime(new BsonTimestamp((int) Instant.now().getEpochSecond(), 0));
    StartPointCheck.require(start, now, generators.oldestHeld(mirror), null);
  }

  /** As far as the generator has got, where it can tell: its last event (verify judges reads against it). */
  @Override
  public StreamPosition readPosition(MirrorConfig mirror) {
    ResumeToken last = generators.lastEventToken(mirror);
    return last == null ? currentPosition(mirror) : StreamPosition.after(last);
  }

  /** Where a mirror's generator comes from. */
  private interface Generators {
    void validate(MirrorConfig mirror);

    /** @throws InvalidMirrorConfigurationException if the mirror's generator cannot be made */
    void requireUsable(MirrorConfig mirror);

    ChangeStreamOpener opener(MirrorConfig mirror);

    SnapshotSource snapshot(MirrorConfig mirror);

    /** The last event made so far, or null if none or not known. */
    ResumeToken lastEventToken(MirrorConfig mirror);

    /** The cluster time of the oldest event a stream can be opened at, or null for every event made. */
    BsonTimestamp oldestHeld(MirrorConfig mirror);
  }

  /** The generator running in this process; its collections are read as they are now. */
  private record Running(GeneratedChangeStream stream, SnapshotSource collections) implements Generators {
    @Override
    public void validate(MirrorConfig mirror) {}

    @Override
    public void requireUsable(MirrorConfig mirror) {}

    @Override
    public ChangeStreamOpener opener(MirrorConfig mirror) {
      return stream;
    }

    @Override
    public SnapshotSource snapshot(MirrorConfig mirror) {
      return collections;
    }

    @Override
    public ResumeToken lastEventToken(MirrorConfig mirror) {
      return stream.lastEventToken();
    }

    @Override
    public BsonTimestamp oldestHeld(MirrorConfig mirror) {
      return stream.oldestHeld();
    }
  }

  /** A generator per mirror and URI, made from the mirror's source peer. */
  private static final class FromUris implements Generators {

    private final PeerRegistry peers;
    private final Map<String, ReplayableStream> streams = new ConcurrentHashMap<>();
    private final Map<GeneratorUri, SnapshotSource> snapshots = new ConcurrentHashMap<>();

    FromUris(PeerRegistry peers) {
      this.peers = peers;
    }

    /** The peer's URI, the mirror's database, and all of its collections (or none named, which means all). */
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
    public void requireUsable(MirrorConfig mirror) {
      uri(mirror);
    }

    @Override
    public ChangeStreamOpener opener(MirrorConfig mirror) {
      GeneratorUri uri = uri(mirror);
      // Keyed by the URI too: a peers file edited to another stream is another stream.
      return streams.computeIfAbsent(mirror.name() + "\n" + uri.toUri(), key -> new ReplayableStream(uri));
    }

    /**
     * The documents the generator's collections hold before its first event, made as they are
     * read (the stream replays every event after them); closing it is a no-op.
     */
    @Override
    public SnapshotSource snapshot(MirrorConfig mirror) {
      return snapshots.computeIfAbsent(uri(mirror), GeneratorUri::initialCollections);
    }

    /** Not known: each worker makes the stream again as far as its cursors read. */
    @Override
    public ResumeToken lastEventToken(MirrorConfig mirror) {
      return null;
    }

    /** The stream's beginning: it is made again from there whenever a cursor needs it, so nothing after is lost. */
    @Override
    public BsonTimestamp oldestHeld(MirrorConfig mirror) {
      return new BsonTimestamp((int) uri(mirror).start().getEpochSecond(), 0);
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
