package io.mongocdc.destination;

/** How a delete event is applied to its row. */
public enum DeleteMode {
  /**
   * The row stays, with {@code _deleted = true}, its last document, and the delete's position
   * and commit time. A tombstone row is written for a key never seen before, so a replayed
   * older insert can never bring the document back.
   */
  SOFT,
  /**
   * The row is removed. No tombstone remains, so a replay from an older checkpoint may show a
   * removed document again until the replayed delete (which always follows it in the stream)
   * is applied.
   */
  HARD
}
