package io.mongocdc.decode;

import org.bson.RawBsonDocument;

/** Renders a document as the JSON text stored in the destination's {@code doc} column. */
@FunctionalInterface
public interface DocumentRenderer {

  /**
   * The document as JSON text. Must be safe to call from several decode threads at once.
   *
   * @throws DocumentRenderException if the document cannot be rendered; the message says why
   */
  String render(RawBsonDocument document);
}
