package io.mongocdc.decode;

import org.bson.RawBsonDocument;
import org.bson.json.JsonMode;
import org.bson.json.JsonWriterSettings;

/**
 * Renders documents with the MongoDB driver's own {@code toJson} in relaxed Extended JSON v2.
 * Correct but slow (it decodes through the driver's reader and writer); kept as the reference
 * the faster transcoder is measured against.
 */
public final class DriverJsonRenderer implements DocumentRenderer {

  private static final JsonWriterSettings RELAXED =
      JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

  @Override
  public String render(RawBsonDocument document) {
    return document.toJson(RELAXED);
  }
}
