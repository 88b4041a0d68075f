package io.mongocdc.decode;

import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * Renders an {@code _id} as the driver's relaxed Extended JSON of the value. A stop-gap: it is
 * not injective under MongoDB's equality (int 1 and double 1.0 render differently although
 * MongoDB treats them as the same key).
 */
public final class DriverJsonKeyRenderer implements KeyRenderer {

  private static final JsonWriterSettings RELAXED =
      JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();
  private static final String PREFIX = "{\"_id\": ";

  @Override
  public String render(BsonValue id) {
    String json = new BsonDocument("_id", id).toJson(RELAXED);
    return json.substring(PREFIX.length(), json.length() - 1);
  }
}
