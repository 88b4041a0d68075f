package io.mongocdc.source.generator;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/** The generator's model of one collection's documents: what the destination must end up holding. */
final class CollectionModel {

  private final Map<BsonValue, BsonDocument> live = new HashMap<>();
  private final List<BsonValue> keys = new ArrayList<>();
  private final Map<BsonValue, Integer> keyIndex = new HashMap<>();
  private int nextDocument;

  int size() {
    return live.size();
  }

  int nextDocumentNumber() {
    return nextDocument++;
  }

  BsonValue randomKey(Random random) {
    return keys.get(random.nextInt(keys.size()));
  }

  BsonDocument get(BsonValue id) {
    return live.get(id);
  }

  void put(BsonValue id, BsonDocument document) {
    if (live.put(id, document) == null) {
      keyIndex.put(id, keys.size());
      keys.add(id);
    }
  }

  void remove(BsonValue id) {
    if (live.remove(id) != null) {
      int index = keyIndex.remove(id);
      BsonValue last = keys.remove(keys.size() - 1);
      if (index < keys.size()) {
        keys.set(index, last);
        keyIndex.put(last, index);
      }
    }
  }

  Map<BsonValue, BsonDocument> snapshot() {
    return new LinkedHashMap<>(live);
  }
}
