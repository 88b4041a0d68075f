package io.mongocdc.devtools;

import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.devtools.generator.GeneratedChangeStream;
import io.mongocdc.devtools.generator.GeneratedCollections;
import io.mongocdc.workflows.model.MirrorConfig;
import org.bson.BsonTimestamp;

/**
 * The source port of {@code mongo-cdc dev} without MongoDB: the built-in load generator, whose
 * collections the snapshot and verify read as they are at the time of the read.
 */
final class GeneratorSourceFactory implements MirrorSourceFactory {

  private final GeneratedChangeStream stream;
  private final SnapshotSource collections;

  /** @param seed makes the snapshot's partition plans repeatable */
  GeneratorSourceFactory(GeneratedChangeStream stream, long seed) {
    this.stream = stream;
    this.collections = new GeneratedCollections(stream, seed);
  }

  @Override
  public SnapshotSource snapshotSource(MirrorConfig mirror) {
    return collections;
  }

  @Override
  public void validate(MirrorConfig mirror) {}

  @Override
  public ChangeStreamOpener openerFor(MirrorConfig mirror) {
    return stream;
  }

  @Override
  public StreamPosition currentPosition(MirrorConfig mirror) {
    // Every generated event is newer than this: the mirror sees the generator's whole history.
    return StreamPosition.atOperationTime(new BsonTimestamp(0, 0));
  }

  /** As far as the generator has got: its last event (verify judges reads against it). */
  @Override
  public StreamPosition readPosition(MirrorConfig mirror) {
    ResumeToken last = stream.lastEventToken();
    return last == null ? currentPosition(mirror) : StreamPosition.after(last);
  }
}
