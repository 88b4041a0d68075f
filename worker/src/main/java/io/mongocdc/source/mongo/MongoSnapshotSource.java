package io.mongocdc.source.mongo;

import com.mongodb.MongoException;
import com.mongodb.ReadConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Collation;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.SnapshotSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * Snapshot reads from one MongoDB database. Does not own the client: whoever created it closes
 * it. Driver failures are classified like the change stream's, so retryability and access
 * errors mean the same thing for both.
 *
 * <p>Partitions are read with the simple collation whatever the collection's default: string
 * ranges are planned in binary order, and under a locale collation {@code $gte}/{@code $lt}
 * would select different, possibly overlapping or gapped, sets. The cost: if the collection has
 * a non-simple default collation, its {@code _id} index carries that collation and cannot serve
 * string bounds under the simple one, so string partitions of such a collection are read by a
 * collection scan each. ObjectId and numeric ranges are unaffected.
 */
public final class MongoSnapshotSource implements SnapshotSource {

  static final Collation SIMPLE = Collation.builder().locale("simple").build();
  private static final BsonDocument BY_ID = new BsonDocument("_id", new BsonInt32(1));

  private final MongoDatabase database;

  public MongoSnapshotSource(MongoDatabase database) {
    this.database = database;
  }

  public MongoSnapshotSource(MongoClient client, String databaseName) {
    this(client.getDatabase(databaseName));
  }

  /** Collections proper, sorted: views, time series and {@code system.*} are not snapshotted. */
  @Override
  public List<String> collectionNames() {
    try {
      List<String> names = new ArrayList<>();
      database.listCollections(BsonDocument.class)
          .filter(new BsonDocument("type", new BsonString("collection")))
          .forEach(info -> {
            String name = info.getString("name").getValue();
            if (!name.startsWith("system.")) {
              names.add(name);
            }
          });
      names.sort(null);
      return names;
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
  }

  @Override
  public long estimatedCount(String collection) {
    try {
      return database.getCollection(collection).estimatedDocumentCount();
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
  }

  @Override
  public List<BsonValue> sampleIds(String collection, int size) {
    if (size <= 0) {
      // $sample rejects a size of 0.
      return List.of();
    }
    List<BsonDocument> pipeline = List.of(
        new BsonDocument("$sample", new BsonDocument("size", new BsonInt32(size))),
        new BsonDocument("$project", new BsonDocument("_id", new BsonInt32(1))));
    try {
      List<BsonValue> ids = new ArrayList<>(size);
      database.getCollection(collection, BsonDocument.class).aggregate(pipeline).forEach(doc -> ids.add(doc.get("_id")));
      return ids;
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
  }

  /**
   * One {@code $sample} aggregation, bounded by {@code maxTimeMS}. MongoDB picks documents with a
   * random cursor when {@code size} is under 5% of the collection; otherwise it scans the
   * collection and sorts it at random, which the time limit bounds.
   */
  @Override
  public void sampleDocuments(String collection, int size, Duration maxTime, Consumer<? super RawBsonDocument> each) {
    if (size <= 0) {
      throw new IllegalArgumentException("a sample needs a positive size, not " + size);
    }
    List<BsonDocument> pipeline = List.of(new BsonDocument("$sample", new BsonDocument("size", new BsonInt32(size))));
    try {
      database.getCollection(collection, RawBsonDocument.class).aggregate(pipeline)
          .maxTime(maxTime.toMillis(), TimeUnit.MILLISECONDS)
          .forEach(each::accept);
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
  }

  @Override
  public DocumentCursor open(String collection, IdRange range, BsonDocument filter, int batchSize) {
    if (batchSize < 0) {
      throw new IllegalArgumentException("batchSize must not be negative, not " + batchSize);
    }
    MongoCollection<RawBsonDocument> source = database.getCollection(collection, RawBsonDocument.class)
        .withReadConcern(ReadConcern.MAJORITY);
    try {
      // In _id order, so a lost cursor is reopened after the last _id it returned; a partition of
      // a collection whose _id index cannot serve the simple collation is sorted on disk if need be.
      return new MongoDocumentCursor(database.getName() + "." + collection + " " + range.describe(),
          after -> source.find(query(range, after, filter)).collation(SIMPLE).sort(BY_ID).allowDiskUse(true)
              .batchSize(batchSize).cursor());
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
  }

  /** One {@code $in} query, read like a partition: majority read concern, simple collation. */
  @Override
  public List<RawBsonDocument> findByIds(String collection, List<BsonValue> ids) {
    if (ids.isEmpty()) {
      return List.of();
    }
    MongoCollection<RawBsonDocument> source = database.getCollection(collection, RawBsonDocument.class)
        .withReadConcern(ReadConcern.MAJORITY);
    try {
      List<RawBsonDocument> found = new ArrayList<>(ids.size());
      source.find(new BsonDocument("_id", new BsonDocument("$in", new BsonArray(ids)))).collation(SIMPLE)
          .forEach(found::add);
      return found;
    } catch (MongoException e) {
      throw ChangeStreamErrors.classify(e);
    }
  }

  /** The range's filter ANDed with the mirror's; {@code $and} keeps a filter on {@code _id} from replacing the range's. */
  static BsonDocument query(IdRange range, BsonDocument filter) {
    return query(range, null, filter);
  }

  /** {@link #query(IdRange, BsonDocument)} for the documents after {@code _id} {@code after} (null: all). */
  static BsonDocument query(IdRange range, BsonValue after, BsonDocument filter) {
    List<BsonDocument> parts = new ArrayList<>(3);
    BsonDocument byRange = range.toFilter();
    if (!byRange.isEmpty()) {
      parts.add(byRange);
    }
    if (after != null) {
      parts.add(new BsonDocument("_id", new BsonDocument("$gt", after)));
    }
    if (filter != null && !filter.isEmpty()) {
      parts.add(filter);
    }
    return parts.isEmpty() ? new BsonDocument() : parts.size() == 1 ? parts.get(0)
        : new BsonDocument("$and", new BsonArray(parts));
  }

  @Override
  public void close() {}
}
