package io.mongocdc.destination;

import io.mongocdc.activities.BatchSink;
import io.mongocdc.activities.InvalidMirrorConfigurationException;
import io.mongocdc.activities.MirrorDestination;
import io.mongocdc.activities.PeerRegistry;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.Namespace;
import io.mongocdc.pipeline.RecordScreen;
import io.mongocdc.secrets.Redaction;
import io.mongocdc.workflows.model.MirrorConfig;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * The activities' destination port on PostgreSQL: one table per watched collection in the
 * mirror's schema, and a {@link PostgresRecordSink} per batch attempt. Connections come from the
 * destination peer's JDBC URL, resolved on the worker.
 */
public final class PostgresMirrorDestination implements MirrorDestination {

  /**
   * Sessions per destination peer: every batch of every mirror on this worker that writes to
   * the peer holds applyConnections of them, so this is room for 15 mirrors' batches at once
   * with the default 2 lanes (set-up and DDL take the rest). A batch that finds none free waits
   * up to 30 s, then fails and is retried.
   */
  static final int POOL_CONNECTIONS = 32;

  private final PeerRegistry peers;
  private final PostgresSinkOptions options;
  private final Map<String, DataSource> dataSources = new ConcurrentHashMap<>();

  public PostgresMirrorDestination(PeerRegistry peers, PostgresSinkOptions options) {
    this.peers = peers;
    this.options = options;
  }

  @Override
  public void validate(MirrorConfig mirror) {
    try (Connection connection = dataSource(mirror).getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("select 1");
      PostgresDestination.plan(mirror.destinationSchema(), sources(mirror), TableNaming.instance());
    } catch (SQLException e) {
      throw new InvalidMirrorConfigurationException("destination " + mirror.destinationPeer() + " is not usable: "
          + Redaction.redact(e.getMessage()));
    } catch (TableNameCollisionException e) {
      throw new InvalidMirrorConfigurationException(e.getMessage());
    }
  }

  @Override
  public List<String> createTables(MirrorConfig mirror) {
    try (Connection connection = dataSource(mirror).getConnection()) {
      return PostgresDestination.setUp(connection, mirror.destinationSchema(), sources(mirror)).stream()
          .map(DestinationTable::qualifiedName)
          .toList();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the tables of mirror " + mirror.name() + ": "
          + Redaction.redact(e.getMessage()), e);
    }
  }

  @Override
  public DestinationTableResolver tableResolver(MirrorConfig mirror) {
    return TableNaming.instance();
  }

  @Override
  public RecordScreen screen(MirrorConfig mirror) {
    return new PostgresRecordScreen(dataSource(mirror), mirror.destinationSchema(),
        PostgresDestination.plan(mirror.destinationSchema(), sources(mirror), TableNaming.instance()));
  }

  @Override
  public BatchSink openSink(MirrorConfig mirror, long batchId) {
    try {
      return PostgresRecordSink.open(dataSource(mirror), options.withSchema(mirror.destinationSchema()),
          PostgresDestination.plan(mirror.destinationSchema(), sources(mirror), TableNaming.instance()));
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open the destination of mirror " + mirror.name() + ": "
          + Redaction.redact(e.getMessage()), e);
    }
  }

  @Override
  public int applyLanes(MirrorConfig mirror) {
    return options.applyConnections();
  }

  @Override
  public void dropTables(MirrorConfig mirror) {
    try (Connection connection = dataSource(mirror).getConnection();
        Statement statement = connection.createStatement()) {
      for (DestinationTable table :
          PostgresDestination.plan(mirror.destinationSchema(), sources(mirror), TableNaming.instance())) {
        statement.execute("drop table if exists " + table.qualifiedName());
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot drop the tables of mirror " + mirror.name() + ": "
          + Redaction.redact(e.getMessage()), e);
    }
  }

  private static List<Namespace> sources(MirrorConfig mirror) {
    return mirror.collections().stream().map(c -> new Namespace(mirror.sourceDatabase(), c)).toList();
  }

  private DataSource dataSource(MirrorConfig mirror) {
    return dataSources.computeIfAbsent(mirror.destinationPeer(),
        name -> PostgresUrls.pool("pg-destination-" + name, peers.resolve(name).connectionString(),
            Math.max(POOL_CONNECTIONS, options.applyConnections() + 2)));
  }
}
