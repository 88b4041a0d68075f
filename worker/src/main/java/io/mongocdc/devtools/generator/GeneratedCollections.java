package io.mongocdc.devtools.generator;

import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.SnapshotSource;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * The generator's collections as they are now, after every event it has generated, as a MongoDB
 * collection is when a snapshot or verify reads it: each read sees the state at its own time,
 * and events generated between two reads show in the second, as writes would on a server. (A
 * snapshot therefore copies later states than its starting point, which the stream's replay from
 * that point overwrites in order, as with MongoDB.) Verify needs this: against the documents
 * before the first event, every change since would look like a difference.
 */
public final class GeneratedCollections implements SnapshotSource {

  private final GeneratedChangeStream stream;
  private final long seed;

  /** @param seed makes {@link #sampleIds} repeatable, as {@link InMemorySnapshotSource}'s does */
  public GeneratedCollections(GeneratedChangeStream stream, long seed) {
    this.stream = stream;
    this.seed = seed;
  }

  /** The collections' documents now, in one copy taken under the generator's lock. */
  private InMemorySnapshotSource now() {
    InMemorySnapshotSource now = new InMemorySnapshotSource(seed);
    stream.expectedState().forEach((ns, documents) -> now.replaceAll(ns.collection(), documents.values()));
    return now;
  }

  @Override
  public List<String> collectionNames() {
    return now().collectionNames();
  }

  @Override
  public long estimatedCount(String collection) {
    return now().estimatedCount(collection);
  }

  @Override
  public List<BsonValue> sampleIds(String collection, int size) {
    return now().sampleIds(collection, size);
  }

  @Override
  public DocumentCursor open(String collection, IdRange range, BsonDocument filter, int batchSize) {
    return now().open(collection, range, filter, batchSize);
  }

  @Override
  public List<RawBsonDocument> findByIds(String collection, List<BsonValue> ids) {
    return now().findByIds(collection, ids);
  }

  @Override
  public void sampleDocuments(String collection, int size, Duration maxTime, Consumer<? super RawBsonDocument> each) {
    now().sampleDocuments(collection, size, maxTime, each);
  }

  @Override
  public void close() {}
}
