package io.mongocdc.ports;

/**
 * Resolves peer names to connections on the worker, from the worker's own configuration. This is
 * the only place credentials live: workflow inputs, history and status carry names.
 */
@FunctionalInterface
public interface PeerRegistry {

  /** @throws UnknownPeerException if no peer has this name */
  Peer resolve(String name);
}
