package io.mongocdc.cli;

import io.mongocdc.activities.PeerRegistry;
import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.CatalogMigrator;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.catalog.PostgresSnapshotCatalog;
import io.mongocdc.catalog.PostgresTableOwnership;
import io.mongocdc.destination.PostgresMirrorDestination;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.source.mongo.MongoMirrorSourceFactory;
import io.mongocdc.destination.PostgresUrls;
import javax.sql.DataSource;

/**
 * The worker's ports on real systems: MongoDB change streams as the source, PostgreSQL as the
 * destination, and the PostgreSQL catalog (migrated at start).
 */
public final class ProductionPorts implements PortsFactory {

  /** Catalog sessions: commits, set-up and snapshot bookkeeping of concurrent mirrors. */
  public static final int CATALOG_CONNECTIONS = 8;

  @Override
  public WorkerPorts create(String catalogJdbcUrl, PeerRegistry peers, PostgresSinkOptions destination) {
    DataSource catalogSource = PostgresUrls.pool("pg-catalog", catalogJdbcUrl, CATALOG_CONNECTIONS);
    CatalogMigrator.migrate(catalogSource);
    Catalog catalog = Catalog.open(catalogSource);
    PostgresTableOwnership tables = new PostgresTableOwnership(catalog);
    return new WorkerPorts(
        new MongoMirrorSourceFactory(peers),
        new PostgresMirrorDestination(peers, destination, tables),
        new PostgresCheckpointCatalog(catalog),
        new PostgresSnapshotCatalog(catalog),
        tables);
  }

}
