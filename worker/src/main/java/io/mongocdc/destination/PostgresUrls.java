package io.mongocdc.destination;

import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.secrets.Redaction;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Data sources from a peer's connection string, written either as a JDBC URL
 * ({@code jdbc:postgresql://host:5432/db?user=u&password=p}) or as a libpq URI
 * ({@code postgresql://u:p@host:5432/db}), which the JDBC driver alone does not accept.
 */
public final class PostgresUrls {

  private PostgresUrls() {}

  /**
   * A connection pool over {@code connectionString}: batches, commits and status reads reuse
   * sessions instead of paying a backend start each. Connections are opened on demand, at most
   * {@code maxConnections}, and closed after a minute unused.
   *
   * @param name the pool's name in logs and thread names; must not hold a secret
   */
  public static HikariDataSource pool(String name, String connectionString, int maxConnections) {
    return pool(name, dataSource(connectionString), maxConnections);
  }

  /** A connection pool over an existing (unpooled) data source; see {@link #pool(String, String, int)}. */
  public static HikariDataSource pool(String name, DataSource connections, int maxConnections) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setDataSource(connections);
    config.setMaximumPoolSize(maxConnections);
    config.setMinimumIdle(0);
    config.setIdleTimeout(60_000);
    // Fail at first use (a clear error in the activity), not when the pool is built.
    config.setInitializationFailTimeout(-1);
    return new HikariDataSource(config);
  }

  public static PGSimpleDataSource dataSource(String connectionString) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    try {
      if (connectionString.startsWith("jdbc:")) {
        dataSource.setUrl(connectionString);
        return dataSource;
      }
      if (!connectionString.startsWith("postgresql://") && !connectionString.startsWith("postgres://")) {
        throw new IllegalArgumentException("not a jdbc:postgresql:// or postgresql:// URL");
      }
      URI uri = URI.create(connectionString);
      String path = uri.getRawPath() == null || uri.getRawPath().length() <= 1 ? "/postgres" : uri.getRawPath();
      String query = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
      dataSource.setUrl("jdbc:postgresql://" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "") + path + query);
      if (uri.getRawUserInfo() != null) {
        String[] userInfo = uri.getRawUserInfo().split(":", 2);
        dataSource.setUser(percentDecoded(userInfo[0]));
        if (userInfo.length == 2) {
          dataSource.setPassword(percentDecoded(userInfo[1]));
        }
      }
      return dataSource;
    } catch (IllegalArgumentException e) {
      // The parser's message quotes the whole string, password included.
      throw new InvalidMirrorConfigurationException("the PostgreSQL peer's connection string "
          + Redaction.redact(connectionString) + " is not usable: " + Redaction.redact(e.getMessage())
          + " (percent-encode special characters of the user and password, e.g. a space as %20)");
    }
  }

  /** A URI's user or password as written, percent-decoded: a {@code +} stays a {@code +}, as libpq reads it. */
  private static String percentDecoded(String raw) {
    return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
  }
}
