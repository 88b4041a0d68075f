package io.mongocdc.workflows.model;

/**
 * A mirror's {@code poisonEventPolicy}: what happens to an event the destination cannot hold or
 * the decoder cannot read (see {@code docs/operations.md}).
 */
public enum PoisonEventPolicy {
  /** The mirror fails, not retried, naming the event. */
  FAIL,
  /** The event is kept in the catalog's {@code quarantined_events} and the batch goes on. */
  QUARANTINE
}
