package io.mongocdc.ports;

/**
 * Destination connections a unit of work (a batch with its apply lanes) holds the right to open
 * until it closes the lease; see {@link MirrorDestination#reserveConnections}.
 */
@FunctionalInterface
public interface ConnectionLease extends AutoCloseable {

  /** For destinations with no budget: nothing to give back. */
  ConnectionLease NONE = () -> {};

  /** Gives the connections back to the budget; once, however often it is called. */
  @Override
  void close();

  /** Whether other work waits for connections of the same budget now. */
  default boolean othersWait() {
    return false;
  }
}
