package io.mongocdc.wiring;

import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.OplogSpan;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A worker's source port: each mirror's source by the scheme of its source peer's connection
 * string. A scheme registered as a {@link SourceScheme} (the load generator's {@code generator:})
 * goes to its own source; every other connection string ({@code mongodb://},
 * {@code mongodb+srv://}) is a MongoDB.
 */
public final class SourcesByPeerScheme implements MirrorSourceFactory, AutoCloseable {

  private final PeerRegistry peers;
  private final MirrorSourceFactory mongodb;
  private final Map<String, MirrorSourceFactory> byScheme = new TreeMap<>();

  /** @param byScheme the sources of other schemes, by scheme name (without the colon, any case) */
  public SourcesByPeerScheme(PeerRegistry peers, MirrorSourceFactory mongodb, Map<String, MirrorSourceFactory> byScheme) {
    this.peers = peers;
    this.mongodb = mongodb;
    byScheme.forEach((scheme, source) -> this.byScheme.put(scheme.toLowerCase(Locale.ROOT), source));
  }

  /** MongoDB, and the source of each scheme in {@code schemes} over the same peers. */
  public static SourcesByPeerScheme of(PeerRegistry peers, MirrorSourceFactory mongodb, List<SourceScheme> schemes) {
    Map<String, MirrorSourceFactory> byScheme = new TreeMap<>();
    schemes.forEach(scheme -> byScheme.put(scheme.scheme(), scheme.sources(peers)));
    return new SourcesByPeerScheme(peers, mongodb, byScheme);
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
  public void requireHistoryHolds(MirrorConfig mirror, StreamPosition start) {
    sourceOf(mirror).requireHistoryHolds(mirror, start);
  }

  @Override
  public StreamPosition currentPosition(MirrorConfig mirror) {
    return sourceOf(mirror).currentPosition(mirror);
  }

  /** Closes the sources that hold connections (the MongoDB clients). */
  @Override
  public void close() {
    List<MirrorSourceFactory> sources = new ArrayList<>();
    sources.add(mongodb);
    sources.addAll(byScheme.values());
    for (MirrorSourceFactory source : sources) {
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
    String connectionString = peers.resolve(mirror.sourcePeer()).connectionString();
    int colon = connectionString == null ? -1 : connectionString.indexOf(':');
    MirrorSourceFactory source = colon < 0 ? null
        : byScheme.get(connectionString.substring(0, colon).toLowerCase(Locale.ROOT));
    return source == null ? mongodb : source;
  }
}
