package io.mongocdc.wiring;

/**
 * The worker's ports cannot be built (no implementation installed, a catalog that does not
 * answer). The message is one line for the operator, with credentials already redacted.
 */
public final class PortsUnavailableException extends RuntimeException {

  public PortsUnavailableException(String message) {
    super(message);
  }
}
