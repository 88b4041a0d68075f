package io.mongocdc.activities;

import io.mongocdc.ports.InvalidMirrorConfigurationException;
import org.bson.BsonDocument;
import org.bson.json.JsonParseException;

/** Reads a collection's snapshot filter: a MongoDB query as Extended JSON. */
public final class SnapshotFilter {

  private SnapshotFilter() {}

  /** @throws InvalidMirrorConfigurationException naming the collection, if it is not a query document */
  public static BsonDocument parse(String collection, String filter) {
    try {
      return BsonDocument.parse(filter);
    } catch (JsonParseException | IllegalArgumentException | org.bson.BSONException e) {
      throw new InvalidMirrorConfigurationException(
          "snapshotFilters." + collection + " is not an Extended JSON query document: " + e.getMessage());
    }
  }
}
