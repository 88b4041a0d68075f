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
   * @param what what the connection string is, for error messages; see {@link #dataSource}
   */
  public static HikariDataSource pool(String name, String what, String connectionString, int maxConnections) {
    return pool(name, dataSource(what, connectionString), maxConnections);
  }

  /** A connection pool over an existing (unpooled) data source; see {@link #pool(String, String, String, int)}. */
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

  /**
   * An unpooled data source over {@code connectionString}.
   *
   * <p>In a libpq URI the user and password run to the last {@code @} before the query string, so
   * a password may hold {@code /}, {@code @}, {@code :} or a space as written; percent-encoded
   * characters are decoded, and a {@code ?} in a password must be percent-encoded ({@code %3F}).
   *
   * @param what what the connection string is, for error messages ({@code "the catalog URL"},
   *     {@code "the connection string of PostgreSQL peer 'warehouse'"}); must not hold a secret
   * @throws InvalidMirrorConfigurationException if it is neither a JDBC URL nor a libpq URI; the
   *     message shows it redacted
   */
  public static PGSimpleDataSource dataSource(String what, String connectionString) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    try {
      if (connectionString.startsWith("jdbc:")) {
        dataSource.setUrl(connectionString);
        return dataSource;
      }
      String scheme = connectionString.startsWith("postgresql://") ? "postgresql://"
          : connectionString.startsWith("postgres://") ? "postgres://" : null;
      if (scheme == null) {
        throw new IllegalArgumentException("not a jdbc:postgresql:// or postgresql:// URL");
      }
      String rest = connectionString.substring(scheme.length());
      int query = rest.indexOf('?');
      int at = rest.lastIndexOf('@', query < 0 ? rest.length() - 1 : query);
      URI uri = URI.create("postgresql://" + rest.substring(at + 1));
      if (uri.getHost() == null) {
        throw new IllegalArgumentException("no host name");
      }
      String path = uri.getRawPath() == null || uri.getRawPath().length() <= 1 ? "/postgres" : uri.getRawPath();
      String parameters = uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery();
      dataSource.setUrl("jdbc:postgresql://" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "") + path
          + parameters);
      if (at >= 0) {
        String[] userInfo = rest.substring(0, at).split(":", 2);
        dataSource.setUser(percentDecoded(userInfo[0]));
        if (userInfo.length == 2) {
          dataSource.setPassword(percentDecoded(userInfo[1]));
        }
      }
      return dataSource;
    } catch (IllegalArgumentException e) {
      // The parser's message quotes the whole string, password included.
      throw new InvalidMirrorConfigurationException(what + " " + Redaction.redact(connectionString)
          + " is not usable: " + Redaction.redact(e.getMessage())
          + " (write jdbc:postgresql://HOST:PORT/DB?user=U&password=P or postgresql://U:P@HOST:PORT/DB)");
    }
  }

  /** A URI's user or password as written, percent-decoded: a {@code +} stays a {@code +}, as libpq reads it. */
  private static String percentDecoded(String raw) {
    return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
  }
}
