package io.mongocdc.ports;

import java.util.Set;

/** A mirror names a peer this worker has no configuration for. */
public class UnknownPeerException extends InvalidMirrorConfigurationException {

  public UnknownPeerException(String name, Set<String> known) {
    super("unknown peer '" + name + "': configure it in the worker's peers file or as "
        + ConfiguredPeerRegistry.environmentVariable(name) + (known.isEmpty() ? "" : " (known: " + String.join(", ", known) + ")"));
  }
}
