package io.mongocdc.workflows.model;

/**
 * A mirror's {@code unknownEventPolicy}: what happens to a change event whose {@code
 * operationType} the mirror does not know (a type a newer server adds, or the expanded events
 * such as {@code createIndexes}). Control events (drop, rename, dropDatabase, invalidate) are
 * known and keep {@link ControlEventPolicy}.
 */
public enum UnknownEventPolicy {
  /**
   * The event is one the decoder cannot read: the mirror fails naming its type, position and
   * namespace ({@link PoisonEventPolicy#QUARANTINE} sets it aside instead). The default, because
   * an event of a type the mirror cannot interpret may carry a change to documents: stopping can
   * be undone (an edit, then resume), a change silently passed over cannot.
   */
  FAIL,
  /** The checkpoint passes over the event; it is logged once per type and counted per type. */
  SKIP
}
