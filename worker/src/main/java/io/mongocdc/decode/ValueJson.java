package io.mongocdc.decode;

import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;

/**
 * Renders one BSON value (a document, an array or a scalar) as the JSON {@code doc} shows it: the
 * same renderer, so a typed {@code jsonb} column and {@code doc->'path'} agree.
 */
final class ValueJson {

  private static final BsonDocumentCodec CODEC = new BsonDocumentCodec();

  private final DocumentRenderer renderer;

  ValueJson(DocumentRenderer renderer) {
    this.renderer = renderer;
  }

  String render(BsonValue value) {
    if (value instanceof RawBsonDocument document) {
      return renderer.render(document);
    }
    // Anything else is rendered as the one field of a document, then cut out of it.
    String wrapped = renderer.render(new RawBsonDocument(new BsonDocument("v", value), CODEC));
    int start = wrapped.indexOf(':') + 1;
    int end = wrapped.lastIndexOf('}');
    return wrapped.substring(start, end).strip();
  }
}
