package io.mongocdc.ports;

/**
 * A peer refused the worker's credentials. Port implementations throw it (or let a driver's own
 * authentication exception through; {@link FailureClassifier} knows those too).
 */
public class PeerAuthenticationException extends RuntimeException {

  public PeerAuthenticationException(String peer, String reason) {
    super("peer '" + peer + "' refused the worker's credentials: " + reason);
  }
}
