package io.mongocdc.wiring;

import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.devtools.generator.GeneratorUri;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.OplogSpan;

/**
 * A worker's source port: each mirror's source by the scheme of its source peer's connection
 * string. {@code generator:} peers are the load generator ({@link GeneratorUri}); every other
 * connection string ({@code mongodb://}, {@code mongodb+srv://}) is a MongoDB.
 */
public final class SourcesByPeerScheme implements MirrorSourceFactory, AutoCloseable {

  private final PeerRegistry peers;
  private final MirrorSourceFactory mongodb;
  private final MirrorSourceFactory generator;

  public SourcesByPeerScheme(PeerRegistry peers, MirrorSourceFactory mongodb, MirrorSourceFactory generator) {
    this.peers = peers;
    this.mongodb = mongodb;
    this.generator = generator;
  }

  @Override
  public void validate(MirrorConfig mirror) {
    sourceOf(mirror).validate(mirror);
  }

  @Override
  public ChangeStreamOpener openerFor(MirrorConfig mirror) {
    return sourceOf(mirror).openerFor(mirror);
  }

  @Override
  public OplogSpan oplogSpan(MirrorConfig mirror) {
    return sourceOf(mirror).oplogSpan(mirror);
  }

  @Override
  public SnapshotSource snapshotSource(MirrorConfig mirror) {
    return sourceOf(mirror).snapshotSource(mirror);
  }

  @Override
  public StreamPosition currentPosition(MirrorConfig mirror) {
    return sourceOf(mirror).currentPosition(mirror);
  }

  /** Closes the sources that hold connections (the MongoDB clients). */
  @Override
  public void close() {
    for (MirrorSourceFactory source : new MirrorSourceFactory[] {mongodb, generator}) {
      if (source instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception e) {
          // Closing releases connections; a failure to release them leaves nothing to undo.
        }
      }
    }
  }

  /** @throws io.mongocdc.ports.UnknownPeerException if the worker does not know the peer */
  private MirrorSourceFactory sourceOf(MirrorConfig mirror) {
    return GeneratorUri.isGenerator(peers.resolve(mirror.sourcePeer()).connectionString()) ? generator : mongodb;
  }
}
