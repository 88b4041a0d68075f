package io.mongocdc.workflows.model;

/**
 * The optional body of the {@code pause} and {@code terminate} signals.
 *
 * @param cancelInFlight cancel the batch in flight instead of letting it finish; its records
 *     replay from the committed checkpoint later (the destination applies them idempotently)
 */
public record StopRequest(boolean cancelInFlight) {

  /** What a signal without a body means: finish the batch in flight first. */
  public static final StopRequest AT_BATCH_BOUNDARY = new StopRequest(false);
}
