package io.mongocdc.source.scripted;

import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.devtools.generator.InMemorySnapshotSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * The product's {@link InMemorySnapshotSource} with the hooks of tests and fault suites: its
 * documents can be changed at any time, also while cursors read.
 *
 * <p>Hooks: {@link #openCount} counts opens per (collection, range); {@link #failAt} and
 * {@link #gateAt} arm the next open of a range to throw, or to wait at a {@link Gate}, at its Nth
 * call to {@code next}, so a test can stop or crash a copy mid-partition without sleeping;
 * {@link #estimatedCountOverride} makes the count metadata stale.
 */
public final class ScriptedSnapshotSource implements SnapshotSource {

  private final InMemorySnapshotSource documents;
  private final Map<String, Long> estimatedCountOverrides = new ConcurrentHashMap<>();
  private final Map<String, Map<IdRange, AtomicInteger>> opens = new ConcurrentHashMap<>();
  private final List<Armed> armed = new ArrayList<>();
  private final Set<ScriptedDocumentCursor> openCursors = ConcurrentHashMap.newKeySet();

  private record Armed(String collection, IdRange range, ScriptedDocumentCursor.Injection injection) {
    boolean appliesTo(String c, IdRange r) {
      return collection.equals(c) && (range == null || range.equals(r));
    }
  }

  /** {@code seed} makes {@link #sampleIds} repeatable. */
  public ScriptedSnapshotSource(long seed) {
    this.documents = new InMemorySnapshotSource(seed);
  }

  public ScriptedSnapshotSource() {
    this(0);
  }

  /** Creates an empty collection (a no-op if it exists). */
  public ScriptedSnapshotSource createCollection(String collection) {
    documents.createCollection(collection);
    return this;
  }

  /** Inserts the document, or replaces the one with an equal {@code _id} (1, 1L and 1.0 are equal). */
  public ScriptedSnapshotSource put(String collection, BsonDocument document) {
    documents.put(collection, document);
    return this;
  }

  public ScriptedSnapshotSource putAll(String collection, List<? extends BsonDocument> documents) {
    this.documents.putAll(collection, documents);
    return this;
  }

  /** Deletes the document with this {@code _id}; false if there was none. */
  public boolean delete(String collection, BsonValue id) {
    return documents.delete(collection, id);
  }

  public void dropCollection(String collection) {
    documents.dropCollection(collection);
    estimatedCountOverrides.remove(collection);
  }

  /** The collection's documents in {@code _id} order (empty if it does not exist). */
  public List<RawBsonDocument> documents(String collection) {
    return documents.documents(collection);
  }

  /** Makes {@link #estimatedCount} report {@code count} (stale metadata); null restores the true count. */
  public ScriptedSnapshotSource estimatedCountOverride(String collection, Long count) {
    documents.createCollection(collection);
    if (count == null) {
      estimatedCountOverrides.remove(collection);
    } else {
      estimatedCountOverrides.put(collection, count);
    }
    return this;
  }

  /**
   * Arms the next open of {@code range} (any range if null) in {@code collection} to throw
   * {@code failure} at its {@code nthCall}-th call to next (1 = before the first document; one
   * more than the partition's size = instead of reporting the end), or from open itself if
   * {@code nthCall} is 0. Each arming applies to one open.
   */
  public ScriptedSnapshotSource failAt(String collection, IdRange range, long nthCall, RuntimeException failure) {
    return arm(collection, range, new ScriptedDocumentCursor.Injection(nthCall, null, failure));
  }

  /**
   * Arms the next open of {@code range} (any range if null) to wait at {@code gate} at its
   * {@code nthCall}-th call to next (n >= 1) until the test releases it. Closing the cursor from
   * another thread ends the wait with an exception.
   */
  public ScriptedSnapshotSource gateAt(String collection, IdRange range, long nthCall, Gate gate) {
    if (nthCall < 1) {
      throw new IllegalArgumentException("a gate is passed in a call to next: nthCall must be at least 1");
    }
    return arm(collection, range, new ScriptedDocumentCursor.Injection(nthCall, gate, null));
  }

  private synchronized ScriptedSnapshotSource arm(String collection, IdRange range, ScriptedDocumentCursor.Injection injection) {
    if (injection.nth() < 0) {
      throw new IllegalArgumentException("nthCall must not be negative");
    }
    armed.add(new Armed(collection, range, injection));
    return this;
  }

  private synchronized ScriptedDocumentCursor.Injection takeArmed(String collection, IdRange range) {
    for (int i = 0; i < armed.size(); i++) {
      if (armed.get(i).appliesTo(collection, range)) {
        return armed.remove(i).injection();
      }
    }
    return null;
  }

  /** How many times {@code range} of {@code collection} was opened (including opens that failed). */
  public int openCount(String collection, IdRange range) {
    AtomicInteger count = opens.getOrDefault(collection, Map.of()).get(range);
    return count == null ? 0 : count.get();
  }

  /** Opens of every range of {@code collection}. */
  public Map<IdRange, Integer> openCounts(String collection) {
    Map<IdRange, Integer> counts = new HashMap<>();
    opens.getOrDefault(collection, Map.of()).forEach((range, n) -> counts.put(range, n.get()));
    return Collections.unmodifiableMap(counts);
  }

  /** Cursors opened and not yet closed: a test's check that every cursor was closed. */
  public int openCursorCount() {
    return openCursors.size();
  }

  @Override
  public List<String> collectionNames() {
    return documents.collectionNames();
  }

  @Override
  public long estimatedCount(String collection) {
    Long override = estimatedCountOverrides.get(collection);
    return override != null ? override : documents.estimatedCount(collection);
  }

  /**
   * Distinct ids picked at random, the same for the same seed, collection, size and contents
   * whatever else the test did before.
   */
  @Override
  public List<BsonValue> sampleIds(String collection, int size) {
    return documents.sampleIds(collection, size);
  }

  /** The product's in-memory sample: repeatable for the same seed, size and contents. */
  @Override
  public void sampleDocuments(String collection, int size, Duration maxTime, Consumer<? super RawBsonDocument> each) {
    documents.sampleDocuments(collection, size, maxTime, each);
  }

  @Override
  public DocumentCursor open(String collection, IdRange range, BsonDocument filter, int batchSize) {
    // Checks the batch size and the filter before the open counts, as a server refuses them.
    DocumentCursor reader = documents.open(collection, range, filter, batchSize);
    opens.computeIfAbsent(collection, c -> new ConcurrentHashMap<>())
        .computeIfAbsent(range, r -> new AtomicInteger()).incrementAndGet();
    ScriptedDocumentCursor.Injection injection = takeArmed(collection, range);
    if (injection != null && injection.nth() == 0 && injection.failure() != null) {
      reader.close();
      throw injection.failure();
    }
    ScriptedDocumentCursor cursor = new ScriptedDocumentCursor(reader, injection, openCursors::remove);
    openCursors.add(cursor);
    return cursor;
  }

  @Override
  public List<RawBsonDocument> findByIds(String collection, List<BsonValue> ids) {
    return documents.findByIds(collection, ids);
  }

  @Override
  public void close() {}
}
