package io.mongocdc.destination;

/**
 * A writer that gives way to change batches ({@link LockYieldingSink}) found its rows locked on
 * every try until its bound ran out. Transient: what it wrote and committed stays, and a retry of
 * the activity writes the rest again. The cause is the last lock failure.
 */
public class DestinationLockedException extends Exception {

  public DestinationLockedException(String message, Throwable cause) {
    super(message, cause);
  }
}
