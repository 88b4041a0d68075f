package io.mongocdc.decode;

import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * Renders an {@code _id} as the driver's relaxed Extended JSON of the value. Not injective under
 * MongoDB's equality (int 1 and double 1.0 render differently although MongoDB treats them as
 * one key): kept for tests that want readable keys and as a reference; production uses
 * {@link IdKeyRenderer}.
 */
public final class DriverJsonKeyRenderer implements KeyRenderer {

  private static final JsonWriterSettings RELAXED =
      JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();
  private static final String PREFIX = "{\"_id\": ";

  @Override
  public String renderIdOf(RawBsonDocument document) {
    BsonValue id = document.get("_id");
    if (id == null) {
      throw new DocumentRenderException("the document has no _id");
    }
    return render(id);
  }

  /** The key text of a decoded {@code _id} value. */
  public String render(BsonValue id) {
    String json = new BsonDocument("_id", id).toJson(RELAXED);
    return json.substring(PREFIX.length(), json.length() - 1);
  }
}
