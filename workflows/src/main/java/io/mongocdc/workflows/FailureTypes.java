package io.mongocdc.workflows;

import java.util.List;

/**
 * The ApplicationFailure types activities raise. All but {@link #TRANSIENT} are never retried:
 * retrying cannot fix them, and the mirror waits for the operator instead.
 */
public final class FailureTypes {

  /** The change stream's history at the checkpoint is gone; the mirror needs a resync. */
  public static final String HISTORY_LOST = "ChangeStreamHistoryLost";
  /** The mirror's configuration or a peer's cannot work. */
  public static final String INVALID_CONFIGURATION = "InvalidConfiguration";
  /** A peer refused the worker's credentials. */
  public static final String AUTHENTICATION_FAILED = "AuthenticationFailed";
  /** An event the decoder cannot turn into a record; retrying would meet it again. */
  public static final String UNDECODABLE_EVENT = "UndecodableEvent";
  /**
   * An event the destination cannot hold (a key too long for its index, a collection whose table
   * another collection has), met under {@code poisonEventPolicy} FAIL; the message names it.
   */
  public static final String POISON_EVENT = "PoisonEvent";
  /**
   * The destination refused what the worker wrote for a reason retrying cannot fix (a data
   * error, a constraint or trigger of its own, a missing table or privilege): SQLSTATE classes
   * 22, 23 (but a concurrent writer's duplicate key), 42 and 54.
   */
  public static final String DESTINATION_REJECTED = "DestinationRejected";
  /**
   * The worker ran out of heap during a pull. Retrying the same batch with the same settings
   * would run out again, for ever; the operator lowers a memory setting or gives more heap.
   */
  public static final String OUT_OF_MEMORY = "OutOfMemory";
  /** Network, primary step-down, destination unavailable, timeouts: retried with backoff. */
  public static final String TRANSIENT = "Transient";

  public static final List<String> NON_RETRYABLE =
      List.of(HISTORY_LOST, INVALID_CONFIGURATION, AUTHENTICATION_FAILED, UNDECODABLE_EVENT, POISON_EVENT,
          DESTINATION_REJECTED, OUT_OF_MEMORY);

  private FailureTypes() {}
}
