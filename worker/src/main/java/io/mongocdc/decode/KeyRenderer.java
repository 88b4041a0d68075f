package io.mongocdc.decode;

import org.bson.RawBsonDocument;

/**
 * Renders a document's {@code _id} as the destination's key text. The rendering must be
 * injective under MongoDB's own equality: {@code _id}s MongoDB treats as equal give the same
 * text, and {@code _id}s it treats as different never do (see docs/id-keys.md).
 *
 * <p>It reads the {@code _id} from raw bytes: a value the driver decoded has lost the difference
 * between two strings whose invalid UTF-8 it replaced alike.
 */
@FunctionalInterface
public interface KeyRenderer {

  /**
   * The key text of the {@code _id} field of {@code document} (a change event's
   * {@code documentKey}, or a full document). Must be safe to call from several threads at once.
   *
   * @throws DocumentRenderException if there is no {@code _id} or it cannot be a key
   */
  String renderIdOf(RawBsonDocument document);
}
