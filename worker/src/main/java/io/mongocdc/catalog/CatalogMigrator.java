package io.mongocdc.catalog;

import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationState;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings the catalog schema up to date with Flyway at start-up, from the migrations in {@code
 * db/migration/catalog} (module {@code catalog-migrations}), and refuses, with a message saying
 * what to do, a catalog it cannot safely use:
 *
 * <ul>
 *   <li>a catalog migrated by a newer worker (applied versions this code does not know);
 *   <li>a half-migrated catalog (a migration recorded as failed);
 *   <li>a {@code mongo_cdc} schema with tables but no migration history;
 *   <li>an applied migration whose script was changed since (checksum mismatch).
 * </ul>
 */
public final class CatalogMigrator {

  /** The catalog's PostgreSQL schema; Flyway's history table lives in it too. */
  public static final String SCHEMA = "mongo_cdc";

  public static final String LOCATION = "classpath:db/migration/catalog";

  private static final Logger log = LoggerFactory.getLogger(CatalogMigrator.class);

  private CatalogMigrator() {}

  /** The Flyway configuration used for the catalog, for tools and tests. */
  public static Flyway flyway(DataSource dataSource) {
    return Flyway.configure()
        .dataSource(dataSource)
        .schemas(SCHEMA)
        .createSchemas(true)
        .locations(LOCATION)
        .validateOnMigrate(true)
        .cleanDisabled(true)
        .load();
  }

  /**
   * Checks the catalog and applies pending migrations.
   *
   * @return the number of migrations applied (0 when the catalog was already current)
   * @throws CatalogException if the catalog is newer than this code, half-migrated, or otherwise
   *     not something this worker may migrate
   */
  public static int migrate(DataSource dataSource) {
    Flyway flyway = flyway(dataSource);
    try {
      refuseUnsafeStates(flyway.info().all());
      MigrateResult result = flyway.migrate();
      if (result.migrationsExecuted > 0) {
        log.info(
            "catalog migrated from version {} to {} ({} migrations)",
            result.initialSchemaVersion,
            result.targetSchemaVersion,
            result.migrationsExecuted);
      }
      return result.migrationsExecuted;
    } catch (CatalogException e) {
      throw e;
    } catch (FlywayException e) {
      throw new CatalogException(
          "catalog schema " + SCHEMA + " cannot be migrated: " + e.getMessage(), e);
    }
  }

  static void refuseUnsafeStates(MigrationInfo[] migrations) {
    List<String> future = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    String latestKnown = null;
    for (MigrationInfo info : migrations) {
      MigrationState state = info.getState();
      if (state == MigrationState.FUTURE_SUCCESS || state == MigrationState.FUTURE_FAILED) {
        future.add(describe(info));
      } else if (state.isFailed()) {
        failed.add(describe(info));
      }
      if (state.isResolved() && info.getVersion() != null) {
        latestKnown = info.getVersion().getVersion();
      }
    }
    if (!future.isEmpty()) {
      throw new CatalogException(
          "catalog schema "
              + SCHEMA
              + " is newer than this worker: it has migrations "
              + future
              + " that this code does not know (this code knows up to version "
              + latestKnown
              + "). Run a worker of the version that migrated the catalog, or newer; do not"
              + " downgrade a catalog.");
    }
    if (!failed.isEmpty()) {
      throw new CatalogException(
          "catalog schema "
              + SCHEMA
              + " is half-migrated: migrations "
              + failed
              + " are recorded as failed. Inspect the schema, undo what the failed migration"
              + " left behind, then run 'flyway repair' on it before starting a worker.");
    }
  }

  private static String describe(MigrationInfo info) {
    String name = info.getVersion() == null ? "R" : "V" + info.getVersion();
    return name + " (" + info.getDescription() + ", " + info.getState() + ")";
  }
}
