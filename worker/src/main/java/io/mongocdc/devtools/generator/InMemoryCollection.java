package io.mongocdc.devtools.generator;

import io.mongocdc.snapshot.BsonIdOrder;
import io.mongocdc.snapshot.IdRange;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * One in-memory collection, keyed by {@code _id} in the server's order (so 1, 1L and 1.0 are one
 * document). Thread-safe: documents may change while cursors read.
 */
final class InMemoryCollection {

  private final TreeMap<BsonValue, RawBsonDocument> documents = new TreeMap<>(BsonIdOrder.INSTANCE);

  synchronized void put(RawBsonDocument document) {
    BsonValue id = document.get("_id");
    if (id == null) {
      throw new IllegalArgumentException("a document needs an _id: " + document.toJson());
    }
    // Remove first: TreeMap.put would keep the old key (1L when 1.0 replaces it).
    documents.remove(id);
    documents.put(id, document);
  }

  synchronized boolean delete(BsonValue id) {
    return documents.remove(id) != null;
  }

  synchronized RawBsonDocument get(BsonValue id) {
    return documents.get(id);
  }

  synchronized List<RawBsonDocument> all() {
    return new ArrayList<>(documents.values());
  }

  synchronized List<BsonValue> ids() {
    return new ArrayList<>(documents.keySet());
  }

  synchronized int size() {
    return documents.size();
  }

  /**
   * Up to {@code limit} documents after {@code afterId} (from the start if null) in {@code _id}
   * order that are in the range and match the filter: one batch of an {@code _id} index scan,
   * which sees changes ahead of its position and not behind it.
   */
  synchronized List<RawBsonDocument> batchAfter(BsonValue afterId, IdRange range, DocumentFilter filter, int limit) {
    NavigableMap<BsonValue, RawBsonDocument> ahead = afterId == null ? documents : documents.tailMap(afterId, false);
    List<RawBsonDocument> batch = new ArrayList<>(Math.min(limit, 1024));
    for (var entry : ahead.entrySet()) {
      if (batch.size() == limit) {
        break;
      }
      if (range.contains(entry.getKey()) && filter.matches(entry.getValue())) {
        batch.add(entry.getValue());
      }
    }
    return batch;
  }
}
