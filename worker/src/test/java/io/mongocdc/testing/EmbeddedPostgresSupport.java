package io.mongocdc.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.mongocdc.catalog.CatalogMigrator;
import io.mongocdc.wiring.ProductionPorts;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One embedded PostgreSQL for the whole test JVM (it starts in about 3 s), and a fresh database
 * per caller so test classes do not see each other's tables. A catalog database is a copy of one
 * migrated once per JVM ({@code CREATE DATABASE ... TEMPLATE}): PostgreSQL copies its files in a
 * few milliseconds, where Flyway takes a second or more to run every migration again.
 */
public final class EmbeddedPostgresSupport {

  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static final String CATALOG_TEMPLATE = "catalog_template";
  private static EmbeddedPostgres postgres;
  private static boolean catalogTemplateMigrated;
  /** The shortest idle time the pool allows: connections a finished test class left go soon. */
  private static final long IDLE_TIMEOUT_MILLIS = 10_000;

  private EmbeddedPostgresSupport() {}

  public static synchronized EmbeddedPostgres postgres() {
    if (postgres == null) {
      try {
        postgres =
            EmbeddedPostgres.builder()
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .start();
      } catch (IOException e) {
        throw new UncheckedIOException("embedded PostgreSQL did not start", e);
      }
      EmbeddedPostgres started = postgres;
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      started.close();
                    } catch (IOException ignored) {
                      // the JVM is going away
                    }
                  }));
    }
    return postgres;
  }

  /** A new, empty database, as a data source. */
  public static DataSource newDatabase(String prefix) {
    return create(prefix + "_" + DATABASES.incrementAndGet(), "");
  }

  /**
   * A new database holding the catalog as every migration leaves it, as {@code
   * CatalogMigrator.migrate} would: a copy of a template database migrated on first use. Tests of
   * the migrations themselves start from {@link #newDatabase} instead.
   *
   * <p>Its connections are pooled, as a worker pools its catalog's: the catalog takes a connection
   * per statement, and a new PostgreSQL connection costs tens of milliseconds. The pool holds none
   * while unused, so it closes nothing a test would have to close.
   */
  public static DataSource newCatalogDatabase(String prefix) {
    return newCatalogDatabase(prefix, ProductionPorts.CATALOG_CONNECTIONS);
  }

  /** {@link #newCatalogDatabase(String)} with a pool of up to {@code connections}. */
  public static DataSource newCatalogDatabase(String prefix, int connections) {
    DataSource database;
    synchronized (EmbeddedPostgresSupport.class) {
      if (!catalogTemplateMigrated) {
        // Flyway has closed its connections when it returns: PostgreSQL copies no database
        // another session is connected to.
        CatalogMigrator.migrate(create(CATALOG_TEMPLATE, ""));
        catalogTemplateMigrated = true;
      }
      database = create(prefix + "_" + DATABASES.incrementAndGet(), " template " + CATALOG_TEMPLATE);
    }
    HikariConfig pool = new HikariConfig();
    pool.setPoolName("test-catalog-" + prefix);
    pool.setDataSource(database);
    pool.setMaximumPoolSize(connections);
    pool.setMinimumIdle(0);
    pool.setIdleTimeout(IDLE_TIMEOUT_MILLIS);
    return new HikariDataSource(pool);
  }

  /** The JDBC URL of a database this class made, for a peer or a command line that connects on its own. */
  public static String jdbcUrl(DataSource database) {
    try (Connection c = database.getConnection()) {
      return postgres().getJdbcUrl("postgres", c.getCatalog());
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the name of the database", e);
    }
  }

  private static DataSource create(String name, String options) {
    try (Connection c = postgres().getPostgresDatabase().getConnection();
        Statement st = c.createStatement()) {
      st.execute("create database " + name + options);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name, e);
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(postgres().getJdbcUrl("postgres", name));
    return ds;
  }
}
