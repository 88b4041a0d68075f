package io.mongocdc.devtools.generator;

import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.SnapshotSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * A {@link SnapshotSource} over collections held in memory: what the development load generator's
 * collections hold before its first event, for the snapshot to copy. Documents can be put,
 * replaced and deleted at any time, also while cursors read; a cursor reads in {@code _id} order
 * one batch at a time, so a change between batches is seen if it lies ahead of the cursor.
 * Filters are the subset of the query language {@link DocumentFilter} models; others are refused.
 */
public final class InMemorySnapshotSource implements SnapshotSource {

  /** The server's default first batch, used when a caller passes batch size 0. */
  static final int DEFAULT_BATCH_SIZE = 101;

  private final long seed;
  private final Map<String, InMemoryCollection> collections = new ConcurrentHashMap<>();

  /** {@code seed} makes {@link #sampleIds} repeatable. */
  public InMemorySnapshotSource(long seed) {
    this.seed = seed;
  }

  public InMemorySnapshotSource() {
    this(0);
  }

  /** Creates an empty collection (a no-op if it exists). */
  public InMemorySnapshotSource createCollection(String collection) {
    collection(collection);
    return this;
  }

  /** Inserts the document, or replaces the one with an equal {@code _id} (1, 1L and 1.0 are equal). */
  public InMemorySnapshotSource put(String collection, BsonDocument document) {
    collection(collection).put(raw(document));
    return this;
  }

  public InMemorySnapshotSource putAll(String collection, List<? extends BsonDocument> documents) {
    documents.forEach(d -> put(collection, d));
    return this;
  }

  /** Deletes the document with this {@code _id}; false if there was none. */
  public boolean delete(String collection, BsonValue id) {
    InMemoryCollection c = collections.get(collection);
    return c != null && c.delete(id);
  }

  public void dropCollection(String collection) {
    collections.remove(collection);
  }

  /** The collection's documents in {@code _id} order (empty if it does not exist). */
  public List<RawBsonDocument> documents(String collection) {
    InMemoryCollection c = collections.get(collection);
    return c == null ? List.of() : c.all();
  }

  @Override
  public List<String> collectionNames() {
    return collections.keySet().stream().sorted().toList();
  }

  /** The true count: in memory, the metadata is never stale. */
  @Override
  public long estimatedCount(String collection) {
    InMemoryCollection c = collections.get(collection);
    return c == null ? 0 : c.size();
  }

  /**
   * Distinct ids picked at random, the same for the same seed, collection, size and contents
   * whatever else happened before.
   */
  @Override
  public List<BsonValue> sampleIds(String collection, int size) {
    InMemoryCollection c = collections.get(collection);
    if (c == null || size <= 0) {
      return List.of();
    }
    List<BsonValue> ids = c.ids();
    Collections.shuffle(ids, new Random(seed * 31 + collection.hashCode()));
    return List.copyOf(ids.subList(0, Math.min(size, ids.size())));
  }

  /** The documents of {@link #sampleIds}: in memory, a read takes no time worth bounding. */
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
    DocumentFilter parsed = DocumentFilter.parse(filter);
    return new InMemoryDocumentCursor(collections.get(collection), range, parsed,
        batchSize == 0 ? DEFAULT_BATCH_SIZE : batchSize);
  }

  /** The documents with these {@code _id}s (1, 1L and 1.0 find the same one), in the order asked. */
  @Override
  public List<RawBsonDocument> findByIds(String collection, List<BsonValue> ids) {
    InMemoryCollection c = collections.get(collection);
    if (c == null) {
      return List.of();
    }
    List<RawBsonDocument> found = new ArrayList<>(ids.size());
    for (BsonValue id : ids) {
      RawBsonDocument document = c.get(id);
      if (document != null) {
        found.add(document);
      }
    }
    return found;
  }

  /** Replaces the collection's documents with these: the state a generator's stream has made. */
  public InMemorySnapshotSource replaceAll(String collection, Collection<? extends BsonDocument> documents) {
    InMemoryCollection replaced = new InMemoryCollection();
    documents.forEach(d -> replaced.put(raw(d)));
    collections.put(collection, replaced);
    return this;
  }

  @Override
  public void close() {}

  private InMemoryCollection collection(String name) {
    return collections.computeIfAbsent(name, n -> new InMemoryCollection());
  }

  private static RawBsonDocument raw(BsonDocument document) {
    return document instanceof RawBsonDocument r ? r : new RawBsonDocument(document, new BsonDocumentCodec());
  }
}
