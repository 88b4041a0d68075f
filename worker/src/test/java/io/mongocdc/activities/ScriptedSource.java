package io.mongocdc.activities;

import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ScriptedSnapshotSource;
import io.mongocdc.workflows.model.MirrorConfig;
import java.util.Objects;

/** A source whose change stream is scripted and whose "current time" is fixed. */
public final class ScriptedSource implements MirrorSourceFactory {

  private final ChangeStreamOpener stream;
  private final StreamPosition now;
  private final PeerRegistry peers;

  public ScriptedSource(ChangeStreamOpener stream, StreamPosition now, PeerRegistry peers) {
    this.stream = Objects.requireNonNull(stream);
    this.now = Objects.requireNonNull(now);
    this.peers = Objects.requireNonNull(peers);
  }

  @Override
  public void validate(MirrorConfig mirror) {
    // Resolving is what the driver adapter does before connecting; its credentials stay here.
    peers.resolve(mirror.sourcePeer());
  }

  @Override
  public ChangeStreamOpener openerFor(MirrorConfig mirror) {
    peers.resolve(mirror.sourcePeer());
    return stream;
  }

  /** An empty database: a snapshot copies nothing. */
  @Override
  public SnapshotSource snapshotSource(MirrorConfig mirror) {
    return new ScriptedSnapshotSource();
  }

  @Override
  public StreamPosition currentPosition(MirrorConfig mirror) {
    return now;
  }
}
