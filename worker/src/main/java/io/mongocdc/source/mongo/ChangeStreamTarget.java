package io.mongocdc.source.mongo;

import com.mongodb.client.ChangeStreamIterable;
import com.mongodb.client.MongoClient;
import java.util.List;
import org.bson.BsonDocument;

/** What a mirror's stream watches: one database, or the whole deployment. */
@FunctionalInterface
public interface ChangeStreamTarget {

  ChangeStreamIterable<BsonDocument> watch(List<BsonDocument> pipeline);

  /** A database-level stream on {@code database}, or a deployment-level one when it is null. */
  static ChangeStreamTarget of(MongoClient client, String database) {
    return database == null
        ? pipeline -> client.watch(pipeline, BsonDocument.class)
        : pipeline -> client.getDatabase(database).watch(pipeline, BsonDocument.class);
  }
}
