package io.mongocdc.cli;

import io.mongocdc.wiring.ProductionPorts;
import io.mongocdc.wiring.WorkerPorts;
import static io.mongocdc.testing.WorkerEnvironment.awaitStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.decode.Namespace;
import io.mongocdc.snapshot.RevealedChangeStream;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorStatus;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.testing.TestPorts;

/**
 * Which mirror a destination table belongs to, end to end: {@code mongo-cdc mirror create} and
 * {@code drop} run in-process against a Temporal test environment whose worker runs the real
 * activities on an embedded PostgreSQL (catalog and destination in two databases), over a
 * scripted change stream.
 */
class MirrorTablesTest {

  private static final String SOURCE_PEER = "tables-mongo";
  private static final String DESTINATION_PEER = "tables-pg";
  private static final String PASSWORD = "Hunter2-catalog-secret";
  private static final Namespace ORDERS = new Namespace("shop", "orders");
  private static final Namespace ITEMS = new Namespace("shop", "items");

  private DataSource catalogData;
  private DataSource destinationData;
  private String catalogUrl;
  private Map<String, String> environment;
  private RevealedChangeStream stream;
  private int events;
  private WorkerEnvironment temporal;
  private WorkflowClient client;

  @BeforeEach
  void start() throws SQLException {
    catalogData = EmbeddedPostgresSupport.newCatalogDatabase("tables_catalog");
    destinationData = EmbeddedPostgresSupport.newDatabase("tables_dest");
    catalogUrl = jdbcUrl(catalogData);
    String destinationUrl = jdbcUrl(destinationData);
    environment = Map.of("MONGO_CDC_PEER_TABLES_MONGO", Fixtures.SOURCE_URI, "MONGO_CDC_PEER_TABLES_PG", destinationUrl);
    PeerRegistry peers = new ConfiguredPeerRegistry(
        Map.of(SOURCE_PEER, Fixtures.SOURCE_URI, DESTINATION_PEER, destinationUrl), Map.of());

    // Ten inserts into shop.orders, then ten into shop.items.
    ChangeEvents changes = new ChangeEvents();
    List<RawBsonDocument> script = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      script.add(changes.insert(ORDERS, document(i)));
    }
    for (int i = 0; i < 10; i++) {
      script.add(changes.insert(ITEMS, document(i)));
    }
    events = script.size();
    stream = new RevealedChangeStream(script);
    stream.reveal(events);

    WorkerPorts ports = TestPorts.postgres(catalogData, peers).source(source(peers)).build();
    temporal = WorkerEnvironment.start().startWorker(peers, ports);
    client = temporal.client;
  }

  @AfterEach
  void stop() {
    temporal.close();
  }

  // ---- two mirrors, one table ----

  @Test
  void aSecondMirrorOnTheSameTablesIsRefusedAtSetupNamingBothMirrorsAndTheTable() throws Exception {
    ok("mirror", "create", "first", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--collection", "orders", "--schema", "public", "--no-snapshot", "--idle-timeout", "1");
    awaitStatus(workflow("first"), s -> delivered(s, 9));

    ok("mirror", "create", "second", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--collection", "orders", "--schema", "public", "--no-snapshot", "--idle-timeout", "1");
    // FAILED at once, or (with the check missing) running and committing batches.
    MirrorStatus second = awaitStatus(workflow("second"),
        s -> s.state() == MirrorPhase.FAILED || s.committedBatchId() > 0 || s.failedAttempts() > 0);

    assertEquals(MirrorPhase.FAILED, second.state(), "refused, not retried: " + second);
    assertEquals(0, second.committedBatchId());
    assertTrue(second.lastError().startsWith("ValidateMirror: [InvalidConfiguration] "), second.lastError());
    assertTrue(second.lastError().contains("destination table shop.orders (schema public, peer tables-pg) "
        + "belongs to mirror first; mirror second cannot write it"), second.lastError());
    assertEquals(List.of("first"), owners("public", "shop.orders"));
    assertEquals(0, catalogCount("select count(*) from mongo_cdc.mirrors where name = 'second'"),
        "the refused mirror registered nothing");
    assertEquals(10, rows("public", "shop.orders"));
  }

  @Test
  void anAllCollectionsMirrorMeetingAnotherMirrorsTableFailsItsBatchNamingBoth() throws Exception {
    ok("mirror", "create", "first", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--collection", "orders", "--schema", "public", "--no-snapshot", "--idle-timeout", "1");
    awaitStatus(workflow("first"), s -> delivered(s, 9));
    String positionsBefore = positions("public", "shop.orders");

    // Every collection of shop: its set-up plans no table, its first batch meets shop.orders.
    ok("mirror", "create", "everything", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--schema", "public", "--no-snapshot", "--idle-timeout", "1");
    MirrorStatus everything = awaitStatus(workflow("everything"),
        s -> s.state() == MirrorPhase.FAILED || s.committedBatchId() > 0 || s.failedAttempts() > 1);

    assertEquals(MirrorPhase.FAILED, everything.state(), "not retried for ever: " + everything);
    assertTrue(everything.lastError().startsWith("PullRecords: [InvalidConfiguration] "), everything.lastError());
    assertTrue(everything.lastError().contains("destination table shop.orders (schema public, peer tables-pg) "
        + "belongs to mirror first; mirror everything cannot write it"), everything.lastError());
    assertEquals(positionsBefore, positions("public", "shop.orders"), "the other mirror's rows are untouched");
    assertEquals(List.of("first"), owners("public", "shop.orders"));
  }

  @Test
  void aMirrorCreatedAgainWithTheSameNameOwnsItsTablesAgain() throws Exception {
    String[] create = {"mirror", "create", "first", "--source-peer", SOURCE_PEER, "--destination-peer",
        DESTINATION_PEER, "--database", "shop", "--collection", "orders", "--schema", "public", "--no-snapshot",
        "--idle-timeout", "1"};
    ok(create);
    MirrorStatus before = awaitStatus(workflow("first"), s -> delivered(s, 9));
    ok("mirror", "drop", "first"); // the workflow only: the catalog keeps the mirror and its tables
    assertTerminated("first");

    ok(create);
    MirrorStatus again = awaitStatus(workflow("first"),
        s -> s.state() == MirrorPhase.FAILED || s.committedBatchId() > before.committedBatchId());

    assertEquals(MirrorPhase.RUNNING, again.state(), "its own tables: " + again);
    assertEquals(List.of("first"), owners("public", "shop.orders"));
    assertEquals(10, rows("public", "shop.orders"));
    ok("mirror", "create", "second", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--collection", "orders", "--schema", "public", "--no-snapshot");
    MirrorStatus second = awaitStatus(workflow("second"), s -> s.state() == MirrorPhase.FAILED || s.committedBatchId() > 0);
    assertTrue(second.lastError().contains("belongs to mirror first"), "still another mirror's: " + second);
  }

  @Test
  void aCollectionAddedByAnEditWhoseTableIsAnotherMirrorsIsRejectedAndTheMirrorGoesOn() throws Exception {
    ok("mirror", "create", "first", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--collection", "orders", "--schema", "public", "--no-snapshot", "--idle-timeout", "1");
    ok("mirror", "create", "second", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--collection", "items", "--schema", "public", "--no-snapshot", "--idle-timeout", "1");
    awaitStatus(workflow("first"), s -> delivered(s, 9));
    awaitStatus(workflow("second"), s -> delivered(s, 19));

    ok("mirror", "edit", "second", "--add-collection", "orders");
    MirrorStatus second = awaitStatus(workflow("second"), s -> !s.recentRejectedEdits().isEmpty()
        || s.config().collections().contains("orders") || s.state() == MirrorPhase.FAILED);

    assertEquals(List.of("items"), second.config().collections());
    assertTrue(second.recentRejectedEdits().get(0).reason().contains("belongs to mirror first; mirror second"),
        second.recentRejectedEdits().toString());
    assertEquals(MirrorPhase.RUNNING, second.state());
    assertEquals(List.of("first"), owners("public", "shop.orders"));
  }

  // ---- drop --drop-tables ----

  @Test
  void dropTablesOfAnAllCollectionsMirrorRemovesEveryTableItCreated() throws Exception {
    ok("mirror", "create", "everything", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--schema", "wide", "--no-snapshot", "--idle-timeout", "1");
    awaitStatus(workflow("everything"), s -> delivered(s, events - 1));
    assertEquals(List.of("shop.items", "shop.orders"), tables("wide"), "created on the way");

    Run dropped = drop("everything");

    assertEquals(0, dropped.exitCode(), dropped.err());
    assertTrue(dropped.out().contains("terminated workflow mirror-everything"), dropped.out());
    assertTrue(dropped.out().contains("dropped destination table shop.orders (schema wide, peer tables-pg)"),
        dropped.out());
    assertEquals(List.of(), tables("wide"));
    assertEquals(0, catalogCount("select count(*) from mongo_cdc.mirror_tables"));
    assertEquals(0, catalogCount("select count(*) from mongo_cdc.mirrors"));
    assertEquals(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED, workflowStatus("everything"),
        "stopped by the workflow itself, its batch cancelled");
  }

  @Test
  void dropTablesWithAnUnreachableCatalogOrDestinationTerminatesNothing() throws Exception {
    ok("mirror", "create", "first", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--collection", "orders", "--schema", "public", "--no-snapshot", "--idle-timeout", "1");
    awaitStatus(workflow("first"), s -> delivered(s, 9));

    Run noCatalog = run("mirror", "drop", "first", "--drop-tables",
        "--catalog-url", "jdbc:postgresql://127.0.0.1:1/catalog?user=cdc&password=" + PASSWORD);
    assertEquals(ExitCodes.FAILED, noCatalog.exitCode(), noCatalog.err());
    assertTrue(noCatalog.err().startsWith("mongo-cdc: cannot reach the catalog at jdbc:postgresql://127.0.0.1:1/"),
        noCatalog.err());
    assertTrue(noCatalog.err().strip().endsWith("; nothing was terminated or dropped"), noCatalog.err());
    assertFalse(noCatalog.err().contains(PASSWORD), noCatalog.err());
    assertEquals(1, noCatalog.err().strip().lines().count(), noCatalog.err());

    String unreachable = "postgresql://cdc:" + PASSWORD + "@127.0.0.1:1/warehouse";
    Run noDestination = run(Map.of("MONGO_CDC_PEER_TABLES_PG", unreachable),
        "mirror", "drop", "first", "--drop-tables", "--catalog-url", catalogUrl);
    assertEquals(ExitCodes.FAILED, noDestination.exitCode(), noDestination.err());
    assertTrue(noDestination.err().contains("destination tables-pg is not usable"), noDestination.err());
    assertTrue(noDestination.err().strip().endsWith("; nothing was terminated or dropped"), noDestination.err());
    assertFalse(noDestination.err().contains(PASSWORD), noDestination.err());

    assertEquals(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING, workflowStatus("first"));
    assertEquals(List.of("shop.orders"), tables("public"));
    assertEquals(List.of("first"), owners("public", "shop.orders"));
  }

  @Test
  void dropTablesRunTwiceFinishesTheJobThenSaysNothingIsLeft() throws Exception {
    ok("mirror", "create", "first", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--collection", "orders", "--schema", "public", "--no-snapshot", "--idle-timeout", "1");
    awaitStatus(workflow("first"), s -> delivered(s, 9));

    Run first = drop("first");
    assertEquals(0, first.exitCode(), first.err());
    assertEquals(List.of(), tables("public"));

    Run second = drop("first");
    assertEquals(0, second.exitCode(), second.err());
    assertTrue(second.out().contains("workflow mirror-first is not running; nothing to terminate"), second.out());
    assertTrue(second.out().contains("mirror first: nothing left to drop"), second.out());
  }

  @Test
  void dropTablesAfterTheWorkflowIsGoneStillDropsTheTablesAndForgetsTheRows() throws Exception {
    ok("mirror", "create", "first", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--collection", "orders", "--schema", "public", "--no-snapshot", "--idle-timeout", "1");
    awaitStatus(workflow("first"), s -> delivered(s, 9));
    ok("mirror", "drop", "first"); // half a drop: the workflow is gone, tables and rows are left
    assertTerminated("first");

    Run finish = drop("first");

    assertEquals(0, finish.exitCode(), finish.err());
    assertTrue(finish.out().contains("workflow mirror-first is not running; nothing to terminate"), finish.out());
    assertEquals(List.of(), tables("public"));
    assertEquals(0, catalogCount("select count(*) from mongo_cdc.mirrors"));
    assertEquals(0, catalogCount("select count(*) from mongo_cdc.mirror_tables"));
  }

  @Test
  void dropTablesOfAMirrorWithoutRecordsFindsItsTablesFromItsConfigurationButNeverAnotherMirrorsTable()
      throws Exception {
    ok("mirror", "create", "old", "--source-peer", SOURCE_PEER, "--destination-peer", DESTINATION_PEER,
        "--database", "shop", "--collection", "orders", "--collection", "items", "--schema", "legacy",
        "--no-snapshot", "--idle-timeout", "1");
    awaitStatus(workflow("old"), s -> delivered(s, events - 1));
    // As a catalog from before table records: none for this mirror, and one of the tables its
    // configuration names is recorded for another mirror.
    catalogExec("delete from mongo_cdc.mirror_tables");
    catalogExec("insert into mongo_cdc.mirror_tables (destination_peer, destination_schema, destination_table,"
        + " mirror_name, source_namespace) values ('tables-pg', 'legacy', 'shop.items', 'other', 'shop.items')");

    Run dropped = drop("old");

    assertEquals(0, dropped.exitCode(), dropped.err());
    assertEquals(List.of("shop.items"), tables("legacy"), "the other mirror's table stays");
    assertEquals(List.of("other"), owners("legacy", "shop.items"));
    assertEquals(0, catalogCount("select count(*) from mongo_cdc.mirrors"));
  }

  // ---- helpers ----

  record Run(int exitCode, String out, String err) {}

  private Run drop(String mirror) {
    return run("mirror", "drop", mirror, "--drop-tables", "--catalog-url", catalogUrl);
  }

  private Run run(String... args) {
    return run(Map.of(), args);
  }

  /** Runs the command with the real ports (ProductionPorts), the test's Temporal and these environment overrides. */
  private Run run(Map<String, String> overrides, String... args) {
    Map<String, String> env = new java.util.HashMap<>(environment);
    env.putAll(overrides);
    CliContext context = new CliContext(temporal -> client, new ProductionPorts(), Map.copyOf(env), stop -> stop.run());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = MongoCdc.commandLine(context).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  private void ok(String... args) {
    Run run = run(args);
    assertEquals(0, run.exitCode(), () -> String.join(" ", args) + ": " + run.err());
  }

  private CdcFlowWorkflow workflow(String mirror) {
    return client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(mirror));
  }

  private WorkflowExecutionStatus workflowStatus(String mirror) {
    return client.newUntypedWorkflowStub(MirrorIds.workflowId(mirror)).describe().getStatus();
  }

  /** A terminate closes the run at once (the server applies it before it answers). */
  private void assertTerminated(String mirror) {
    assertEquals(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED, workflowStatus(mirror));
  }

  private boolean delivered(MirrorStatus status, int eventIndex) {
    if (status.committedCheckpoint() == null || status.committedCheckpoint().resumeToken() == null) {
      return false;
    }
    ResumeToken committed = ResumeToken.of(status.committedCheckpoint().resumeToken());
    return committed.compareTo(stream.tokenOf(eventIndex)) >= 0;
  }

  private MirrorSourceFactory source(PeerRegistry peers) {
    return ScriptedSource.builder().peers(peers).stream(stream).now(Fixtures.BEFORE_EVENTS).build();
  }

  private static BsonDocument document(int id) {
    return new BsonDocument("_id", new BsonInt32(id)).append("status", new BsonString("new"));
  }

  private static String jdbcUrl(DataSource data) throws SQLException {
    try (Connection c = data.getConnection()) {
      return EmbeddedPostgresSupport.postgres().getJdbcUrl("postgres", c.getCatalog());
    }
  }

  /** The mirrored tables of a schema, by name. */
  private List<String> tables(String schema) throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection c = destinationData.getConnection();
        PreparedStatement st = c.prepareStatement(
            "select tablename from pg_tables where schemaname = ? order by tablename")) {
      st.setString(1, schema);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
    }
    return names;
  }

  private long rows(String schema, String table) throws SQLException {
    try (Connection c = destinationData.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select count(*) from "
            + io.mongocdc.destination.TableNaming.qualified(schema, table))) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Every row's key and position: what another writer would change. */
  private String positions(String schema, String table) throws SQLException {
    StringBuilder all = new StringBuilder();
    try (Connection c = destinationData.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select \"_id\", \"_position\", \"_synced_at\" from "
            + io.mongocdc.destination.TableNaming.qualified(schema, table) + " order by 1")) {
      while (rs.next()) {
        all.append(rs.getString(1)).append('@').append(rs.getString(2)).append('@').append(rs.getString(3)).append('\n');
      }
    }
    return all.toString();
  }

  private List<String> owners(String schema, String table) throws SQLException {
    List<String> owners = new ArrayList<>();
    try (Connection c = catalogData.getConnection();
        PreparedStatement st = c.prepareStatement("select mirror_name from mongo_cdc.mirror_tables"
            + " where destination_peer = ? and destination_schema = ? and destination_table = ?")) {
      st.setString(1, DESTINATION_PEER);
      st.setString(2, schema);
      st.setString(3, table);
      try (ResultSet rs = st.executeQuery()) {
        while (rs.next()) {
          owners.add(rs.getString(1));
        }
      }
    }
    return owners;
  }

  private long catalogCount(String sql) throws SQLException {
    try (Connection c = catalogData.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void catalogExec(String sql) throws SQLException {
    try (Connection c = catalogData.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
