package io.mongocdc.destination;

import io.mongocdc.secrets.Redaction;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a destination server has room for the connections a worker may open to it: its {@code
 * max_connections} less those reserved for superusers and those open now (other workers' among
 * them). Said once per peer when the worker first uses it, a warning with the numbers when the
 * worker's pool does not fit: a server out of connections refuses every client, not only this one.
 */
final class ConnectionHeadroom {

  private static final Logger log = LoggerFactory.getLogger(ConnectionHeadroom.class);

  private static final String QUERY = "select current_setting('max_connections')::int,"
      + " current_setting('superuser_reserved_connections')::int,"
      + " (select count(*) from pg_stat_activity where backend_type = 'client backend')::int";

  /** The server's figures; {@code open} counts the connection that read them. */
  record Figures(int maxConnections, int superuserReserved, int open) {

    /** Connections a client may still open. */
    int free() {
      return Math.max(0, maxConnections - superuserReserved - open);
    }
  }

  private ConnectionHeadroom() {}

  /** Checks on a thread of its own: an unreachable peer fails its first batch, not this. */
  static void checkInBackground(String peer, DataSource pool, int poolConnections) {
    Thread thread = new Thread(() -> check(peer, pool, poolConnections), "pg-destination-" + peer + "-headroom");
    thread.setDaemon(true);
    thread.start();
  }

  static void check(String peer, DataSource pool, int poolConnections) {
    Figures figures;
    try {
      figures = read(pool);
    } catch (SQLException | RuntimeException e) {
      log.debug("destination peer '{}': cannot read max_connections: {}", peer,
          Redaction.redact(String.valueOf(e.getMessage())));
      return;
    }
    String verdict = verdict(peer, figures, poolConnections);
    if (fits(figures, poolConnections)) {
      log.info(verdict);
    } else {
      log.warn(verdict);
    }
  }

  /** The server's figures, read on one connection of {@code pool}. */
  static Figures read(DataSource pool) throws SQLException {
    try (Connection connection = pool.getConnection(); Statement st = connection.createStatement();
        ResultSet rs = st.executeQuery(QUERY)) {
      rs.next();
      return new Figures(rs.getInt(1), rs.getInt(2), rs.getInt(3));
    }
  }

  /** Whether the pool, less the connection already open to read the figures, fits in what is free. */
  static boolean fits(Figures figures, int poolConnections) {
    return poolConnections - 1 <= figures.free();
  }

  static String verdict(String peer, Figures figures, int poolConnections) {
    String server = "max_connections " + figures.maxConnections() + ", " + figures.superuserReserved()
        + " reserved for superusers, " + figures.open() + " open now";
    if (!fits(figures, poolConnections)) {
      return "destination peer '" + peer + "': this worker may open " + poolConnections + " connections but the"
          + " server has " + figures.free() + " free (" + server + "); batches will fail to connect when they all"
          + " run: lower --destination-connections on its workers or raise max_connections";
    }
    return "destination peer '" + peer + "': this worker may open " + poolConnections + " connections; the server"
        + " has " + figures.free() + " free (" + server + "), room for " + (figures.free() + 1) / poolConnections
        + " worker(s) like this one";
  }
}
