package io.mongocdc.cli;

import io.mongocdc.activities.PeerRegistry;
import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.CatalogMigrator;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.catalog.PostgresSnapshotCatalog;
import io.mongocdc.destination.PostgresMirrorDestination;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.source.mongo.MongoMirrorSourceFactory;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The worker's ports on real systems: MongoDB change streams as the source, PostgreSQL as the
 * destination, and the PostgreSQL catalog (migrated at start).
 */
public final class ProductionPorts implements PortsFactory {

  @Override
  public WorkerPorts create(String catalogJdbcUrl, PeerRegistry peers) {
    PGSimpleDataSource catalogSource = new PGSimpleDataSource();
    catalogSource.setUrl(catalogJdbcUrl);
    CatalogMigrator.migrate(catalogSource);
    Catalog catalog = Catalog.open(catalogSource);
    return new WorkerPorts(
        new MongoMirrorSourceFactory(peers),
        new PostgresMirrorDestination(peers, PostgresSinkOptions.defaults()),
        new PostgresCheckpointCatalog(catalog),
        new PostgresSnapshotCatalog(catalog));
  }
}
