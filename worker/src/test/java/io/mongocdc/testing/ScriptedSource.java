package io.mongocdc.testing;

import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.snapshot.RevealedChangeStream;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ScriptedSnapshotSource;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.OplogSpan;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The tests' one {@link MirrorSourceFactory}: a scripted change stream, a snapshot source and a
 * "current time", each given to a {@link Builder}. A test states only what its source does
 * differently (a stream per mirror, a snapshot read that fails, a check when validating); the
 * rest is the plain scripted source: an empty database whose time is fixed.
 */
public final class ScriptedSource implements MirrorSourceFactory {

  private final PeerRegistry peers;
  private final Consumer<MirrorConfig> validation;
  private final Function<MirrorConfig, ChangeStreamOpener> streams;
  private final Function<MirrorConfig, SnapshotSource> snapshots;
  private final Function<MirrorConfig, StreamPosition> now;
  private final Function<MirrorConfig, StreamPosition> readPosition;
  private final Supplier<OplogSpan> oplogSpan;

  private ScriptedSource(Builder builder) {
    this.peers = builder.peers;
    this.validation = builder.validation;
    this.streams = Objects.requireNonNull(builder.streams, "a scripted source needs a stream");
    this.snapshots = builder.snapshots;
    this.now = Objects.requireNonNull(builder.now, "a scripted source needs its time now");
    this.readPosition = builder.readPosition;
    this.oplogSpan = builder.oplogSpan;
  }

  /**
   * The plain scripted source: {@code stream} for every mirror, an empty database, time fixed at
   * {@code now}, and the mirror's source peer resolved through {@code peers} as the driver adapter
   * does before it connects.
   */
  public ScriptedSource(ChangeStreamOpener stream, StreamPosition now, PeerRegistry peers) {
    this(builder().stream(stream).now(now).peers(peers));
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void validate(MirrorConfig mirror) {
    // Resolving is what the driver adapter does before connecting; its credentials stay here.
    if (peers != null) {
      peers.resolve(mirror.sourcePeer());
    }
    validation.accept(mirror);
  }

  @Override
  public ChangeStreamOpener openerFor(MirrorConfig mirror) {
    if (peers != null) {
      peers.resolve(mirror.sourcePeer());
    }
    return streams.apply(mirror);
  }

  @Override
  public SnapshotSource snapshotSource(MirrorConfig mirror) {
    return snapshots.apply(mirror);
  }

  @Override
  public StreamPosition currentPosition(MirrorConfig mirror) {
    return now.apply(mirror);
  }

  @Override
  public OplogSpan oplogSpan(MirrorConfig mirror) {
    return oplogSpan.get();
  }

  @Override
  public StreamPosition readPosition(MirrorConfig mirror) {
    return readPosition == null ? currentPosition(mirror) : readPosition.apply(mirror);
  }

  /** What a scripted source does; unset parts are those of the plain scripted source. */
  public static final class Builder {
    private PeerRegistry peers;
    private Consumer<MirrorConfig> validation = mirror -> {};
    private Function<MirrorConfig, ChangeStreamOpener> streams;
    private Function<MirrorConfig, SnapshotSource> snapshots = mirror -> new ScriptedSnapshotSource();
    private Function<MirrorConfig, StreamPosition> now;
    private Function<MirrorConfig, StreamPosition> readPosition;
    private Supplier<OplogSpan> oplogSpan = () -> null;

    private Builder() {}

    /** Validating and opening the stream resolve the mirror's source peer here (unset: no peer check). */
    public Builder peers(PeerRegistry peers) {
      this.peers = Objects.requireNonNull(peers);
      return this;
    }

    /** A further check when a mirror is validated, after its peer resolved. */
    public Builder validation(Consumer<MirrorConfig> validation) {
      this.validation = Objects.requireNonNull(validation);
      return this;
    }

    /** The same stream for every mirror, whatever its collections. */
    public Builder stream(ChangeStreamOpener stream) {
      Objects.requireNonNull(stream);
      return streams(mirror -> stream);
    }

    /** The revealed stream, filtered to the mirror's collections as a {@code $match} on {@code ns} does. */
    public Builder stream(RevealedChangeStream stream) {
      Objects.requireNonNull(stream);
      return streams(mirror -> stream.watching(Set.copyOf(mirror.collections())));
    }

    /** The stream each mirror opens. */
    public Builder streams(Function<MirrorConfig, ChangeStreamOpener> streams) {
      this.streams = Objects.requireNonNull(streams);
      return this;
    }

    /** The database a snapshot reads, the same for every mirror (unset: an empty database). */
    public Builder snapshot(SnapshotSource snapshot) {
      Objects.requireNonNull(snapshot);
      return snapshots(mirror -> snapshot);
    }

    /** The database each mirror's snapshot reads. */
    public Builder snapshots(Function<MirrorConfig, SnapshotSource> snapshots) {
      this.snapshots = Objects.requireNonNull(snapshots);
      return this;
    }

    /** The source's time now, fixed: where a new mirror starts. */
    public Builder now(StreamPosition now) {
      Objects.requireNonNull(now);
      return now(() -> now);
    }

    /** The source's time now, asked each time a new mirror (or a resync) takes its starting point. */
    public Builder now(Supplier<StreamPosition> now) {
      Objects.requireNonNull(now);
      this.now = mirror -> now.get();
      return this;
    }

    /** Where verify reads the source from (unset: the time now). */
    public Builder readPosition(Supplier<StreamPosition> readPosition) {
      Objects.requireNonNull(readPosition);
      this.readPosition = mirror -> readPosition.get();
      return this;
    }

    /** The source's oplog span, asked each time (unset: not reported, as a source without one). */
    public Builder oplogSpan(Supplier<OplogSpan> oplogSpan) {
      this.oplogSpan = Objects.requireNonNull(oplogSpan);
      return this;
    }

    public ScriptedSource build() {
      return new ScriptedSource(this);
    }
  }
}
