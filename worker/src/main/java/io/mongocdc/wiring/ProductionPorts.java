package io.mongocdc.wiring;

import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.CatalogMigrator;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.catalog.PostgresSnapshotCatalog;
import io.mongocdc.catalog.PostgresTableOwnership;
import io.mongocdc.catalog.VerifyStore;
import io.mongocdc.destination.PostgresMirrorDestination;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.source.mongo.MongoMirrorSourceFactory;
import io.mongocdc.destination.PostgresUrls;
import io.mongocdc.secrets.Redaction;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The worker's ports on real systems: MongoDB change streams as the source (or the source of a
 * registered {@link SourceScheme}, such as the load generator for a {@code generator:...} peer),
 * PostgreSQL as the destination, and the PostgreSQL catalog (migrated at start).
 */
public final class ProductionPorts implements PortsFactory {

  /** Catalog sessions: commits, set-up and snapshot bookkeeping of concurrent mirrors. */
  public static final int CATALOG_CONNECTIONS = 8;

  private static final int PROBE_SECONDS = 10;
  private static final String CATALOG_URL = "the catalog URL (--catalog-url)";

  @Override
  public WorkerPorts create(String catalogJdbcUrl, PeerRegistry peers, PostgresSinkOptions destination) {
    requireReachable(catalogJdbcUrl);
    DataSource catalogSource = PostgresUrls.pool("pg-catalog", CATALOG_URL, catalogJdbcUrl, CATALOG_CONNECTIONS);
    CatalogMigrator.migrate(catalogSource);
    return over(Catalog.open(catalogSource), peers, destination, sources(peers));
  }

  /** Two connections: the console's page reads, one at a time mostly. */
  @Override
  public DataSource catalogReads(String catalogJdbcUrl) {
    return PostgresUrls.pool("pg-console", CATALOG_URL, catalogJdbcUrl, 2);
  }

  /** The PostgreSQL destination and catalog over an open catalog, with {@code sources} as the source port. */
  public static WorkerPorts over(Catalog catalog, PeerRegistry peers, PostgresSinkOptions destination,
      MirrorSourceFactory sources) {
    PostgresTableOwnership tables = new PostgresTableOwnership(catalog);
    return new WorkerPorts(
        sources,
        new PostgresMirrorDestination(peers, destination, tables),
        new PostgresCheckpointCatalog(catalog),
        new PostgresSnapshotCatalog(catalog),
        tables,
        new VerifyStore(catalog));
  }

  /**
   * MongoDB, or the source of a scheme registered as a {@link SourceScheme} (the load generator
   * for a {@code generator:} peer); no catalog is touched.
   */
  @Override
  public SourcesByPeerScheme sources(PeerRegistry peers) {
    return SourcesByPeerScheme.of(peers, new MongoMirrorSourceFactory(peers), SourceScheme.installed());
  }

  /**
   * One direct connection first: the pool would wait its whole connection timeout for a catalog
   * that refuses connections and then report only that; this fails at once, with the reason.
   */
  static void requireReachable(String catalogJdbcUrl) {
    try (Connection probe = PostgresUrls.dataSource(CATALOG_URL, catalogJdbcUrl).getConnection()) {
      if (!probe.isValid(PROBE_SECONDS)) {
        throw new SQLException("the server did not answer within " + PROBE_SECONDS + " s");
      }
    } catch (SQLException e) {
      throw new PortsUnavailableException("cannot reach the catalog at " + Redaction.redact(catalogJdbcUrl) + ": "
          + Redaction.redact(String.valueOf(e.getMessage())));
    }
  }
}
