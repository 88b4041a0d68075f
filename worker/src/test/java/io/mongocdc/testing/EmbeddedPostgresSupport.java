package io.mongocdc.testing;

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
 * per caller so test classes do not see each other's tables.
 */
public final class EmbeddedPostgresSupport {

  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static EmbeddedPostgres postgres;

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
    String name = prefix + "_" + DATABASES.incrementAndGet();
    try (Connection c = postgres().getPostgresDatabase().getConnection();
        Statement st = c.createStatement()) {
      st.execute("create database " + name);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create database " + name, e);
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setUrl(postgres().getJdbcUrl("postgres", name));
    return ds;
  }
}
