package io.mongocdc.faults;

import io.mongocdc.activities.Fixtures;
import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.privacy.HashKey;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One lane of the fault suite: scenarios run one after another in a lane, lanes run side by side.
 * A lane owns everything a fault may hit, so no fault crosses into another lane's scenario: its
 * own destination PostgreSQL server (restarted, its backends killed) and its own Temporal test
 * server (its clock moved) with the running scenario's worker (crashed). The catalog is shared:
 * faults reach it only through a wrapper of the scenario's own.
 */
final class FaultLane implements AutoCloseable {

  static final String SOURCE_PEER = "orders-mongo";
  static final String DESTINATION_PEER = "faults-pg";
  static final String DESTINATION_DATABASE = "faults_dest";
  /**
   * The application name of the test's own connections to the destination ({@link #destinationData}:
   * the oracle's reads, its trigger): the faults kill the mirror's connections, not these.
   */
  static final String TEST_APPLICATION = "faults-oracle";
  /** A test server serves this many scenarios, then a new one starts (its histories are kept in memory). */
  private static final int SCENARIOS_PER_HARNESS = 50;
  /** The workers' field hash key, as their environment gives it; the oracle hashes with the same. */
  private static final String FIELD_HASH_KEY_TEXT = "the fault suite's field hash key";
  static final HashKey FIELD_HASH_KEY = HashKey.of(FIELD_HASH_KEY_TEXT, "the fault suite");

  final DestinationServer destination;
  final DataSource destinationData;
  final PeerRegistry peers;
  private FaultHarness harness;
  private int scenariosInHarness;

  FaultLane() throws SQLException {
    this.destination = new DestinationServer();
    try (Connection c = destination.postgres().getPostgresDatabase().getConnection();
        Statement st = c.createStatement()) {
      st.execute("create database " + DESTINATION_DATABASE);
    } catch (SQLException | RuntimeException e) {
      // A lane that does not start leaves no server behind.
      destination.close();
      throw e;
    }
    String url = destination.postgres().getJdbcUrl("postgres", DESTINATION_DATABASE);
    PGSimpleDataSource data = new PGSimpleDataSource();
    data.setUrl(url);
    data.setApplicationName(TEST_APPLICATION);
    this.destinationData = data;
    try (Connection c = data.getConnection(); Statement st = c.createStatement()) {
      // The oracle's witness: any update that moves a row's position back is logged here.
      st.execute("create table public.faults_backwards (schema_name text, id text,"
          + " old_position text collate \"C\", new_position text collate \"C\")");
      st.execute("create function public.faults_backwards() returns trigger language plpgsql as $$"
          + " begin if new.\"_position\" < old.\"_position\" then"
          + " insert into public.faults_backwards values (TG_TABLE_SCHEMA, old.\"_id\", old.\"_position\","
          + " new.\"_position\"); end if; return new; end $$");
    }
    this.peers = new ConfiguredPeerRegistry(
        Map.of(SOURCE_PEER, Fixtures.SOURCE_URI, DESTINATION_PEER, url),
        Map.of(HashKey.ENVIRONMENT_VARIABLE, FIELD_HASH_KEY_TEXT));
  }

  /** The test server and worker for the next scenario. */
  FaultHarness harness() {
    if (harness != null && scenariosInHarness < SCENARIOS_PER_HARNESS && harness.timeSkippingStuck()) {
      // The test server leaked a time-skipping lock (seen as the lock of a workflow task that is
      // never released): from then on every skip of its clock passes in real time.
      FaultCounters.SUITE.add("test servers replaced: their clock no longer skipped", 1);
      retireHarness();
    }
    if (harness == null || scenariosInHarness >= SCENARIOS_PER_HARNESS) {
      retireHarness();
      harness = new FaultHarness();
      scenariosInHarness = 0;
    }
    scenariosInHarness++;
    return harness;
  }

  /** After a failed scenario: the next one starts on a fresh test server and worker. */
  void retireHarness() {
    if (harness != null) {
      harness.close();
      harness = null;
    }
  }

  @Override
  public void close() {
    retireHarness();
    destination.close();
  }
}
