package io.mongocdc.devtools.generator;

import io.mongocdc.decode.Namespace;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.SnapshotSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
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
 *
 * <p>Documents are made from the generator's model as they are read (see {@link
 * CollectionModel}), a batch at a time under the generator's lock: reading a collection of
 * millions holds one batch in memory, never the collection.
 */
public final class GeneratedCollections implements SnapshotSource {

  private final GeneratedChangeStream stream;
  private final long seed;

  /** @param seed makes {@link #sampleIds} repeatable, as {@link InMemorySnapshotSource}'s does */
  GeneratedCollections(GeneratedChangeStream stream, long seed) {
    this.stream = stream;
    this.seed = seed;
  }

  @Override
  public List<String> collectionNames() {
    return stream.namespaces().stream().map(Namespace::collection).sorted().toList();
  }

  @Override
  public long estimatedCount(String collection) {
    Integer size = stream.read(collection, model -> model == null ? null : model.size());
    return size == null ? 0 : size;
  }

  /** Distinct live ids picked at random, the same for the same seed, collection, size and state. */
  @Override
  public List<BsonValue> sampleIds(String collection, int size) {
    if (size <= 0) {
      return List.of();
    }
    return stream.read(collection, model -> {
      if (model == null) {
        return List.<BsonValue>of();
      }
      List<BsonValue> ids = new ArrayList<>(Math.min(size, model.size()));
      if (size >= model.size()) {
        for (int key = 0; key < model.keyLimit(); key++) {
          if (model.live(key)) {
            ids.add(model.format().key(key));
          }
        }
        return ids;
      }
      Random random = new Random(seed * 31 + collection.hashCode());
      Set<Integer> picked = new HashSet<>();
      while (picked.size() < size) {
        int key = model.randomLiveKey(random);
        if (picked.add(key)) {
          ids.add(model.format().key(key));
        }
      }
      return ids;
    });
  }

  @Override
  public void sampleDocuments(String collection, int size, Duration maxTime, Consumer<? super RawBsonDocument> each) {
    if (size <= 0) {
      throw new IllegalArgumentException("a sample needs a positive size, not " + size);
    }
    findByIds(collection, sampleIds(collection, size)).forEach(each);
  }

  /** @throws IllegalArgumentException for a negative batch size or a filter {@link DocumentFilter} does not model */
  @Override
  public DocumentCursor open(String collection, IdRange range, BsonDocument filter, int batchSize) {
    if (batchSize < 0) {
      throw new IllegalArgumentException("batchSize must not be negative, not " + batchSize);
    }
    return new GeneratedDocumentCursor(stream, collection, range, DocumentFilter.parse(filter),
        batchSize == 0 ? InMemorySnapshotSource.DEFAULT_BATCH_SIZE : batchSize);
  }

  /** The documents with these {@code _id}s (1, 1L and 1.0 find the same one), in the order asked. */
  @Override
  public List<RawBsonDocument> findByIds(String collection, List<BsonValue> ids) {
    return stream.read(collection, model -> {
      List<RawBsonDocument> found = new ArrayList<>(ids.size());
      if (model != null) {
        for (BsonValue id : ids) {
          RawBsonDocument document = model.document(model.format().keyNumber(id));
          if (document != null) {
            found.add(document);
          }
        }
      }
      return found;
    });
  }

  /** Every collection's documents by {@code _id}, all in memory: for tests of small collections. */
  public Map<Namespace, Map<BsonValue, BsonDocument>> documents() {
    Map<Namespace, Map<BsonValue, BsonDocument>> all = new LinkedHashMap<>();
    for (Namespace ns : stream.namespaces()) {
      Map<BsonValue, BsonDocument> documents = new LinkedHashMap<>();
      try (DocumentCursor cursor = open(ns.collection(), IdRange.whole(), new BsonDocument(), 1_000)) {
        for (RawBsonDocument document = cursor.next(); document != null; document = cursor.next()) {
          documents.put(document.get("_id"), document);
        }
      }
      all.put(ns, documents);
    }
    return all;
  }

  /** Keys the generator stores because events changed them (see {@link GeneratedChangeStream#storedKeys}). */
  public long storedKeys() {
    return stream.storedKeys();
  }

  @Override
  public void close() {}
}
