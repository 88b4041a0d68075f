package io.mongocdc.snapshot;

import io.mongocdc.ports.InvalidMirrorConfigurationException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * The MongoDB side of an initial snapshot: what a database's collections hold, and reading one
 * collection by {@code _id} range. One instance serves one mirror's source database.
 */
public interface SnapshotSource extends AutoCloseable {

  /** The collections of the source database, sorted by name (for mirrors of every collection). */
  List<String> collectionNames();

  /** The collection's document count as the server estimates it from metadata (cheap). */
  long estimatedCount(String collection);

  /**
   * Up to {@code size} {@code _id}s picked at random from the collection (unsorted), for
   * planning partitions. An empty list for an empty or missing collection.
   */
  List<BsonValue> sampleIds(String collection, int size);

  /**
   * Opens a cursor over the documents whose {@code _id} is in {@code range} and that match
   * {@code filter} (an empty document matches all), read as raw BSON.
   */
  DocumentCursor open(String collection, IdRange range, BsonDocument filter, int batchSize);

  /**
   * The documents with these {@code _id}s that exist now, read as raw BSON, in no particular
   * order: what verify re-reads to judge and repair single documents.
   *
   * @throws InvalidMirrorConfigurationException if this source cannot
   */
  default List<RawBsonDocument> findByIds(String collection, List<BsonValue> ids) {
    throw new InvalidMirrorConfigurationException(
        "this source cannot read documents by _id, so it cannot be verified");
  }

  /**
   * Up to {@code size} documents of the collection picked at random (MongoDB's {@code $sample}),
   * each handed to {@code each} as it is read, so the caller holds none it does not keep; the
   * server gives the read up after {@code maxTime}. What {@code mongo-cdc mirror
   * suggest-columns} reads: nothing for an empty or missing collection.
   *
   * @throws IllegalArgumentException if {@code size} is not positive
   * @throws InvalidMirrorConfigurationException if this source cannot
   */
  default void sampleDocuments(String collection, int size, Duration maxTime, Consumer<? super RawBsonDocument> each) {
    throw new InvalidMirrorConfigurationException("this source cannot sample documents");
  }

  /** Releases what the source holds. Never throws. */
  @Override
  void close();
}
