package io.mongocdc.destination;

import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static io.mongocdc.testing.WorkerEnvironment.awaitStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.PostgresTableOwnership;
import io.mongocdc.cli.CliContext;
import io.mongocdc.cli.MongoCdc;
import io.mongocdc.decode.Namespace;
import io.mongocdc.ports.ConnectionLease;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.snapshot.RevealedChangeStream;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.mongocdc.workflows.model.StopRequest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.testing.TestPorts;

/**
 * Issue 34: more mirrors than one worker's destination pool serves at once. Six mirrors share a
 * pool whose budget holds one batch at a time; while the test holds that budget every mirror's
 * batch waits, heartbeating, and says so in the catalog, {@code mirror status} and the metrics;
 * once it is free they take turns (a batch others wait for ends after its turn), and every mirror
 * delivers everything with no attempt failed.
 */
class ConnectionBudgetWorkflowTest {

  private static final String SOURCE_PEER = "budget-mongo";
  private static final String DESTINATION_PEER = "budget-pg";
  private static final String DATABASE = "shop";
  private static final Namespace ORDERS = new Namespace(DATABASE, "orders");
  private static final String TABLE = TableNaming.tableName(ORDERS);
  private static final int MIRRORS = 6;
  private static final int ORDERS_PER_MIRROR = 40;

  @RegisterExtension
  static final WorkflowTestExtension fixture = WorkflowTestExtension.withDatabases("budget", SOURCE_PEER,
      DESTINATION_PEER);

  @Test
  void mirrorsBeyondThePoolWaitTheirTurnVisiblyAndAllDeliverWithNoFailedAttempt() throws Exception {
    Map<String, RevealedChangeStream> streams = new LinkedHashMap<>();
    List<MirrorConfig> mirrors = new ArrayList<>();
    for (int m = 1; m <= MIRRORS; m++) {
      String name = "budget" + m;
      streams.put(name, new RevealedChangeStream(events(m)));
      mirrors.add(new MirrorConfig(name, SOURCE_PEER, DESTINATION_PEER, DATABASE, List.of("orders"), name,
          MirrorSettings.defaults().toBuilder().batchSize(1_000).idleTimeoutSeconds(1).maxBatchDurationSeconds(600)
              .decodeWorkers(1).chunkSize(16).snapshot(SnapshotSettings.off()).build()));
    }
    // One lane per batch, so each batch leases 2 connections, and a budget of 4 - 2 reserved = 2:
    // one batch at a time.
    PostgresSinkOptions options = PostgresSinkOptions.defaults().withConnections(1, 4);
    assertEquals(1, options.batchesAtOnce());
    PostgresMirrorDestination destination = new PostgresMirrorDestination(fixture.peers(), options,
        new PostgresTableOwnership(Catalog.open(fixture.catalog())));
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    WorkerPorts ports = ports(destination, streams);
    // A turn of 1 ms: a batch that others wait for ends as soon as it has read what it could.
    fixture.start().startWorker(fixture.peers(), ports, PullTuning.defaults().withConnectionTurn(Duration.ofMillis(1)),
        System::nanoTime, meters);

    ConnectionLease heldByTheTest = destination.tryReserveConnections(mirrors.get(0), 2).orElseThrow();
    List<CdcFlowWorkflow> flows = new ArrayList<>();
    for (MirrorConfig mirror : mirrors) {
      streams.get(mirror.name()).reveal(ORDERS_PER_MIRROR + 10);
      flows.add(fixture.temporal().start(mirror));
    }
    // Every mirror's batch waits in mirror_status, and mirror status shows the wait.
    awaitStatus(flows.get(0), s -> waitingInCatalog() == MIRRORS);
    awaitStatus(flows.get(2), s -> status("budget3").contains("waiting for destination connections"));
    assertEquals(1.0, meters.get("mongo_cdc_waiting_for_destination_connections").tag("mirror", "budget3").gauge()
        .value());
    assertEquals(MIRRORS, count(fixture.destination(), "select count(*) from information_schema.tables"
        + " where table_schema like 'budget%' and table_name = '" + TABLE + "'"),
        "set-up, outside the budget, made every mirror's table meanwhile");

    heldByTheTest.close();
    for (int m = 0; m < MIRRORS; m++) {
      RevealedChangeStream stream = streams.get(mirrors.get(m).name());
      MirrorStatus done = awaitStatus(flows.get(m), s -> stream.deliveredThrough(s, ORDERS_PER_MIRROR + 9));
      assertEquals(ORDERS_PER_MIRROR + 10, done.totals().get(RECORDS_DELIVERED), done.toString());
      String table = TableNaming.qualified(mirrors.get(m).name(), TABLE);
      assertEquals(ORDERS_PER_MIRROR, count(fixture.destination(), "select count(*) from " + table));
      assertEquals(10, count(fixture.destination(), "select count(*) from " + table
          + " where doc->>'status' = 'updated' and (doc->>'_id')::int <= 10"));
    }
    assertEquals(0, count(fixture.catalog(), "select count(*) from mongo_cdc.batch_attempts where failed_at is not null and"
        + " mirror_name like 'budget%'"), "no attempt failed for want of a connection");
    assertTrue(meters.get("mongo_cdc_destination_connection_waits").tag("mirror", "budget6").timer().count() >= 1);
    assertTrue(count(fixture.catalog(), "select count(*) from mongo_cdc.batches where mirror_name like 'budget%'"
        + " and end_reason = 'TURN_OVER'") >= 1, "a batch others waited for gave way after its turn");
    flows.forEach(flow -> flow.terminate(new StopRequest(false)));
  }

  /** Orders 1..40 inserted, then the first 10 updated. */
  private static List<RawBsonDocument> events(int mirror) {
    ChangeEvents events = new ChangeEvents(1_700_000_000 + mirror);
    List<RawBsonDocument> list = new ArrayList<>();
    for (int i = 1; i <= ORDERS_PER_MIRROR; i++) {
      list.add(events.insert(ORDERS, order(i, "new")));
    }
    for (int i = 1; i <= 10; i++) {
      list.add(events.update(ORDERS, new BsonInt32(i), order(i, "updated"),
          new BsonDocument("status", new BsonString("updated"))));
    }
    return list;
  }

  private static BsonDocument order(int id, String status) {
    return new BsonDocument("_id", new BsonInt32(id)).append("status", new BsonString(status));
  }

  private static WorkerPorts ports(PostgresMirrorDestination destination, Map<String, RevealedChangeStream> streams) {
    MirrorSourceFactory source = ScriptedSource.builder()
        .streams(mirror -> streams.get(mirror.name()).watching(Set.copyOf(mirror.collections())))
        .snapshots(mirror -> {
          throw new UnsupportedOperationException("no snapshot in this test");
        })
        .now(StreamPosition.atOperationTime(new BsonTimestamp(1_600_000_000, 0))).build();
    return TestPorts.postgres(fixture).source(source).destination(destination).build();
  }

  private static long waitingInCatalog() {
    try {
      return count(fixture.catalog(), "select count(*) from mongo_cdc.mirror_status where mirror like 'budget%'"
          + " and waiting = 'waiting for destination connections' and waiting_since is not null");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String status(String mirror) {
    StringWriter out = new StringWriter();
    MongoCdc.commandLine(new CliContext(options -> fixture.temporal().client,
            (catalogUrl, registry, sinkOptions) -> {
              throw new UnsupportedOperationException("status needs no ports");
            }, Map.of(), stop -> stop.run()))
        .setOut(new PrintWriter(out)).setErr(new PrintWriter(out))
        .execute("mirror", "status", mirror);
    return out.toString();
  }

  private static long count(DataSource data, String sql) throws SQLException {
    try (Connection c = data.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
