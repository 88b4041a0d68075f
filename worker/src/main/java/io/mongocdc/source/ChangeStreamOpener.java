package io.mongocdc.source;

/** Opens a mirror's change stream at a position; the pipeline reopens through it when needed. */
@FunctionalInterface
public interface ChangeStreamOpener {

  /**
   * Opens the stream so that its first event is the first one after (or, for an operation time,
   * at) {@code position}.
   *
   * @throws ChangeStreamException if the server refuses, classified by type
   */
  ChangeStreamCursor open(StreamPosition position);
}
