package io.mongocdc.source.mongo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * Builds the aggregation pipeline of a mirror's change stream: one {@code $match} that lets
 * through the watched collections' events (minus excluded operations) and every event that
 * changes the stream itself, so the pipeline can act on it rather than miss it.
 */
public final class ChangeStreamPipeline {

  private ChangeStreamPipeline() {}

  public static List<BsonDocument> build(MongoSourceSettings settings) {
    Map<String, BsonArray> collectionsByDb = new LinkedHashMap<>();
    for (String name : settings.collections()) {
      int dot = name.indexOf('.');
      collectionsByDb.computeIfAbsent(name.substring(0, dot), db -> new BsonArray())
          .add(new BsonString(name.substring(dot + 1)));
    }
    BsonArray anyOf = new BsonArray();
    collectionsByDb.forEach((db, colls) -> {
      BsonDocument watched = new BsonDocument("ns.db", new BsonString(db))
          .append("ns.coll", new BsonDocument("$in", colls));
      if (!settings.excludedOperations().isEmpty()) {
        BsonArray excluded = new BsonArray();
        for (String operationType : settings.excludedOperations()) {
          excluded.add(new BsonString(operationType));
        }
        watched.append("operationType", new BsonDocument("$nin", excluded));
      }
      anyOf.add(watched);
      // A rename INTO a watched collection replaces its contents: the pipeline must see it.
      anyOf.add(new BsonDocument("operationType", new BsonString("rename"))
          .append("to.db", new BsonString(db))
          .append("to.coll", new BsonDocument("$in", colls)));
      anyOf.add(new BsonDocument("operationType", new BsonString("dropDatabase"))
          .append("ns.db", new BsonString(db)));
    });
    anyOf.add(new BsonDocument("operationType", new BsonString("invalidate")));

    List<BsonDocument> pipeline = new ArrayList<>();
    pipeline.add(new BsonDocument("$match", new BsonDocument("$or", anyOf)));
    if (settings.splitLargeEvents()) {
      pipeline.add(new BsonDocument("$changeStreamSplitLargeEvent", new BsonDocument()));
    }
    return pipeline;
  }
}
