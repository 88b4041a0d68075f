package io.mongocdc.cli;

import io.mongocdc.activities.PeerRegistry;
import io.mongocdc.destination.PostgresSinkOptions;
import java.util.ServiceLoader;

/**
 * Builds the worker's ports from its configuration. The MongoDB source and the PostgreSQL
 * destination and catalog register an implementation through {@link ServiceLoader}; tests pass
 * their own.
 */
@FunctionalInterface
public interface PortsFactory {

  /**
   * @param catalogJdbcUrl the catalog database (credentials come from the environment or the
   *     peers file, never from this URL in history or logs)
   * @param peers the worker's peers
   * @param destination how the PostgreSQL destination applies batches
   */
  WorkerPorts create(String catalogJdbcUrl, PeerRegistry peers, PostgresSinkOptions destination);

  /** The implementation on the class path, or one that says none is. */
  static PortsFactory installed() {
    return (catalogJdbcUrl, peers, destination) -> ServiceLoader.load(PortsFactory.class).findFirst()
        .orElseThrow(() -> new CliException(
            "no MongoDB source and PostgreSQL catalog/destination are installed in this build "
                + "(no " + PortsFactory.class.getName() + " service found)", ExitCodes.FAILED))
        .create(catalogJdbcUrl, peers, destination);
  }
}
