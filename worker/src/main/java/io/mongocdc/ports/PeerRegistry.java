package io.mongocdc.ports;

import io.mongocdc.privacy.HashKey;

/**
 * Resolves peer names to connections on the worker, from the worker's own configuration. This is
 * the only place credentials live: workflow inputs, history and status carry names.
 */
@FunctionalInterface
public interface PeerRegistry {

  /** @throws UnknownPeerException if no peer has this name */
  Peer resolve(String name);

  /** The key of the worker's {@code hash} field rules; null when it has none. */
  default HashKey fieldHashKey() {
    return null;
  }
}
