package io.mongocdc.faults;

import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.catalog.PostgresSnapshotCatalog;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import javax.sql.DataSource;

/**
 * The fault suite's one catalog, on the shared embedded PostgreSQL: every scenario records its
 * mirror there under its own name, and faults reach it only through a scenario's wrappers
 * ({@link FaultyCheckpointCatalog}, {@link FaultySnapshotCatalog}). Reached through a connection
 * pool, as the worker reaches its catalog: a backend started per catalog call would cost the
 * suite's two cores more than the calls do.
 */
final class SuiteCatalog {

  /** Enough for every lane's commit, state record and snapshot call at once. */
  private static final int CONNECTIONS = 16;

  private static DataSource catalogData;
  private static PostgresCheckpointCatalog checkpoints;
  private static PostgresSnapshotCatalog snapshots;

  private SuiteCatalog() {}

  static synchronized PostgresCheckpointCatalog checkpoints() {
    open();
    return checkpoints;
  }

  /** The catalog's database, for the oracle's reads. */
  static synchronized DataSource catalogData() {
    open();
    return catalogData;
  }

  static synchronized PostgresSnapshotCatalog snapshots() {
    open();
    return snapshots;
  }

  private static void open() {
    if (checkpoints == null) {
      // The pool lives as long as the test JVM, like the embedded server under it.
      catalogData = EmbeddedPostgresSupport.newCatalogDatabase("faults_catalog", CONNECTIONS);
      Catalog catalog = Catalog.open(catalogData);
      checkpoints = new PostgresCheckpointCatalog(catalog);
      snapshots = new PostgresSnapshotCatalog(catalog);
    }
  }
}
