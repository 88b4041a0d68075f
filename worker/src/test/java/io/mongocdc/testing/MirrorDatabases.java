package io.mongocdc.testing;

import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.ports.PeerRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;

/**
 * A test class's own catalog (migrated) and destination database on the shared embedded
 * PostgreSQL, and the peers that name them: a scripted source peer and the destination's URL.
 */
public record MirrorDatabases(DataSource catalog, DataSource destination, PeerRegistry peers) {

  /** Databases {@code <prefix>_catalog} and {@code <prefix>_dest}, and the two peers. */
  public static MirrorDatabases create(String prefix, String sourcePeer, String destinationPeer) throws SQLException {
    DataSource catalog = EmbeddedPostgresSupport.newCatalogDatabase(prefix + "_catalog");
    DataSource destination = EmbeddedPostgresSupport.newDatabase(prefix + "_dest");
    String database;
    try (Connection c = destination.getConnection()) {
      database = c.getCatalog();
    }
    String url = EmbeddedPostgresSupport.postgres().getJdbcUrl("postgres", database);
    return new MirrorDatabases(catalog, destination,
        new ConfiguredPeerRegistry(Map.of(sourcePeer, Fixtures.SOURCE_URI, destinationPeer, url), Map.of()));
  }
}
