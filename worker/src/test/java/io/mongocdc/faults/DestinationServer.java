package io.mongocdc.faults;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The fault suite's own embedded PostgreSQL for the destination, so it can be restarted under load
 * without touching the catalog or other test classes: {@link #restart()} stops the postmaster
 * ({@code pg_ctl stop}, fast mode: clients are disconnected, open transactions roll back) and
 * starts it again on the same data directory and port, as a server restart does.
 */
final class DestinationServer implements AutoCloseable {

  private final Path dataDirectory;
  private int port;
  private EmbeddedPostgres server;

  DestinationServer() {
    try {
      dataDirectory = Files.createTempDirectory("faults-destination-pg");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    server = start();
    port = server.getPort();
  }

  private EmbeddedPostgres start() {
    try {
      EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
          .setServerConfig("fsync", "off")
          .setServerConfig("synchronous_commit", "off")
          .setServerConfig("full_page_writes", "off")
          .setDataDirectory(dataDirectory)
          // Kept on close, so a restart finds the databases it had (initdb runs only the first time).
          .setCleanDataDirectory(false);
      if (port != 0) {
        builder.setPort(port);
      }
      return builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException("the destination's PostgreSQL did not start", e);
    }
  }

  synchronized EmbeddedPostgres postgres() {
    return server;
  }

  /** Stops the server and starts it again on the same data directory and port. */
  synchronized void restart() {
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("the destination's PostgreSQL did not stop", e);
    }
    server = start();
  }

  @Override
  public synchronized void close() {
    try {
      server.close();
    } catch (IOException ignored) {
      // going away anyway
    }
    try (Stream<Path> files = Files.walk(dataDirectory)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temporary directory
    }
  }
}
