package io.mongocdc.decode;

import org.bson.BsonValue;

/**
 * Renders a document's {@code _id} as the destination's key text. The rendering must be
 * injective under MongoDB's own equality: {@code _id}s MongoDB treats as equal give the same
 * text, and {@code _id}s it treats as different never do.
 */
@FunctionalInterface
public interface KeyRenderer {

  /**
   * The key text for an {@code _id} value. Must be safe to call from several threads at once.
   *
   * @throws DocumentRenderException if the value cannot be a key; the message says why
   */
  String render(BsonValue id);
}
