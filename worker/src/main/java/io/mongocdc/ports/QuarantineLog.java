package io.mongocdc.ports;

import io.mongocdc.pipeline.PoisonEvent;

/**
 * Where a batch under {@code poisonEventPolicy} QUARANTINE keeps the events it sets aside (the
 * catalog's {@code quarantined_events}). A write must be durable when it returns: the batch goes
 * on to commit the records after the event.
 */
@FunctionalInterface
public interface QuarantineLog {

  /** Keeps nothing: a mirror that asks for QUARANTINE fails its batch with a clear message. */
  QuarantineLog NONE = (mirror, batchId, event) -> {
    throw new IllegalStateException("this worker has no catalog to quarantine events in");
  };

  /** Keeps the event; meeting the same event (position) again replaces its row. */
  void setAside(String mirror, long batchId, PoisonEvent event);
}
