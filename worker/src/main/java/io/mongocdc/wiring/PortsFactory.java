package io.mongocdc.wiring;

import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.destination.PostgresSinkOptions;
import java.util.ServiceLoader;
import javax.sql.DataSource;

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

  /**
   * The source port alone, for commands that read the source and need no catalog ({@code mirror
   * suggest-columns}). The caller closes it if it is {@link AutoCloseable}. By default the
   * source of {@link #create}'s ports.
   */
  default MirrorSourceFactory sources(PeerRegistry peers) {
    return create(null, peers, PostgresSinkOptions.defaults()).source();
  }

  /**
   * A small pool over the catalog for reading only (the mirror console's pages).
   *
   * @throws PortsUnavailableException when this factory has no catalog to read
   */
  default DataSource catalogReads(String catalogJdbcUrl) {
    throw new PortsUnavailableException("no catalog to read in this build");
  }

  /** The implementation on the class path, or one that says none is. */
  static PortsFactory installed() {
    return new PortsFactory() {
      @Override
      public WorkerPorts create(String catalogJdbcUrl, PeerRegistry peers, PostgresSinkOptions destination) {
        return found().create(catalogJdbcUrl, peers, destination);
      }

      @Override
      public MirrorSourceFactory sources(PeerRegistry peers) {
        return found().sources(peers);
      }

      @Override
      public DataSource catalogReads(String catalogJdbcUrl) {
        return found().catalogReads(catalogJdbcUrl);
      }

      private PortsFactory found() {
        return ServiceLoader.load(PortsFactory.class).findFirst()
            .orElseThrow(() -> new PortsUnavailableException(
                "no MongoDB source and PostgreSQL catalog/destination are installed in this build "
                    + "(no " + PortsFactory.class.getName() + " service found)"));
      }
    };
  }
}
