package io.mongocdc.workflows.model;

/** A mirror's {@code controlEventPolicy}: what a pull does when the stream reports a drop, rename, dropDatabase or invalidate. */
public enum ControlEventPolicy {
  /**
   * End the batch just before the event: everything before it is delivered, the checkpoint stops
   * short of it, and the result names it so the mirror can pause and tell the operator. The
   * event is met again on resume until the operator changes the mirror or the policy.
   */
  PAUSE,
  /** Log and count the event, then go on; the checkpoint passes it. */
  IGNORE
}
