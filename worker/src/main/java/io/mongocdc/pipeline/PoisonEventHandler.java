package io.mongocdc.pipeline;

/** Where a pull sets poison events aside (the catalog's {@code quarantined_events}). */
@FunctionalInterface
public interface PoisonEventHandler {

  /**
   * Keeps the event durably, or throws to fail the pull. It returns before the records after the
   * event are committed, so the checkpoint never passes an event that is not kept.
   */
  void setAside(PoisonEvent event) throws Exception;
}
