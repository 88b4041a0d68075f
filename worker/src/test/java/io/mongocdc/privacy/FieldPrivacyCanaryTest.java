package io.mongocdc.privacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.decode.Namespace;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.ports.Peer;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.testing.LogCapture;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.PoisonEventPolicy;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.mongocdc.wiring.WorkerPorts;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.sql.DataSource;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.mongocdc.testing.TestPorts;

/**
 * Issue 32's canary: values planted in an excluded field and a hashed field, carried by inserts,
 * an update's post-image, pre-image and {@code updateDescription}, an event the destination
 * refuses and one the decoder cannot read, are found nowhere the pipeline writes: no destination
 * table or history row, no catalog row (quarantine included), no log line, no metric, no status
 * and no event of the workflow history. The hash of the hashed one is where its value was.
 */
class FieldPrivacyCanaryTest {

  private static final String EXCLUDED = "canary-excluded-7f3a";
  private static final String HASHED = "canary-hashed-91bd";
  private static final String KEY = "the canary test's field hash key";
  private static final Namespace ORDERS = Fixtures.ORDERS;

  @RegisterExtension
  final WorkflowTestExtension fixture = WorkflowTestExtension.withDatabases("canary", "orders-mongo", "warehouse-pg");

  private LogCapture logged;

  @BeforeEach
  void captureTheLog() {
    logged = LogCapture.start();
  }

  @AfterEach
  void stopCapturing() {
    logged.close();
  }

  @Test
  void theCanariesAppearNowhereAndTheHashIsWhereTheValueWas() throws Exception {
    ChangeEvents changes = new ChangeEvents();
    List<RawBsonDocument> events = new ArrayList<>();
    events.add(changes.insert(ORDERS, order(1, HASHED, EXCLUDED)));
    events.add(ChangeEvents.withPreImage(changes.update(ORDERS, new BsonInt32(1), order(1, HASHED + "-2", EXCLUDED + "-2"),
        new BsonDocument("customer.email", new BsonString(HASHED + "-2"))
            .append("customer.address.street", new BsonString(EXCLUDED + "-2"))
            .append("customer", order(1, HASHED + "-3", EXCLUDED + "-3").getDocument("customer"))),
        order(1, HASHED, EXCLUDED)));
    // The destination refuses it (a key longer than its primary key holds): quarantined with its document.
    events.add(changes.insert(ORDERS, order(0, HASHED + "-4", EXCLUDED + "-4").append("_id", new BsonString("k".repeat(3_000)))));
    // The decoder cannot read it (no documentKey._id): quarantined with its BSON.
    BsonDocument undecodable = changes.insert(ORDERS, order(2, HASHED + "-5", EXCLUDED + "-5")).decode(new BsonDocumentCodec());
    undecodable.put("documentKey", new BsonDocument("customer", new BsonDocument("address",
        new BsonDocument("street", new BsonString(EXCLUDED + "-6")))));
    events.add(new RawBsonDocument(undecodable, new BsonDocumentCodec()));
    events.add(changes.insert(ORDERS, order(3, HASHED, EXCLUDED)));
    ScriptedChangeStream stream = ScriptedChangeStream.builder().events(events).build();

    PeerRegistry peers = new PeerRegistry() {
      @Override
      public Peer resolve(String name) {
        return fixture.peers().resolve(name);
      }

      @Override
      public HashKey fieldHashKey() {
        return HashKey.of(KEY, "test");
      }
    };
    WorkerPorts ports = TestPorts.postgres(fixture.catalog(), peers)
        .source(new ScriptedSource(stream, Fixtures.BEFORE_EVENTS, peers)).verifyRuns().build();
    PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    WorkerEnvironment flow = fixture.start().startWorker(peers, ports, PullTuning.defaults(), System::nanoTime, meters);

    MirrorSettings settings = MirrorSettings.defaults().toBuilder().idleTimeoutSeconds(1).snapshot(SnapshotSettings.off())
        .poisonEventPolicy(PoisonEventPolicy.QUARANTINE).build().apply(EditRequest.fromJson(Map.of(
            "history", Map.of("orders", true), "fullDocumentBeforeChange", "whenAvailable",
            "fieldRules", Map.of("orders", Map.of("exclude", List.of("customer.address"),
                "hash", List.of("customer.email"))))));
    MirrorConfig mirror = new MirrorConfig("orders", "orders-mongo", "warehouse-pg", "shop", List.of("orders"),
        "public", settings);
    CdcFlowWorkflow workflow = flow.start(mirror);
    String last = stream.tokenOf(events.size() - 1).data();
    MirrorStatus status = WorkerEnvironment.awaitStatus(workflow, s -> s.committedCheckpoint() != null
        && last.equals(s.committedCheckpoint().resumeToken()));
    workflow.terminate(null);
    flow.result("orders");

    String destination = everyRow(fixture.destination(), "public");
    String catalogRows = everyRow(fixture.catalog(), "mongo_cdc");
    String history = flow.client.fetchHistory(MirrorIds.workflowId("orders")).toJson(false);
    String statusJson = new ObjectMapper().findAndRegisterModules().writeValueAsString(status);
    String metrics = meters.scrape();
    String log = logged.text();

    assertTrue(destination.contains(hmac(HASHED)), "the hash is where the value was: " + destination);
    String historyTable = TableNaming.qualified("public", TableNaming.historyTableName(TableNaming.tableName(ORDERS)));
    assertEquals(3, countRows(fixture.destination(), historyTable), "the history of both inserts and the update");
    assertEquals(2, countRows(fixture.catalog(), "mongo_cdc.quarantined_events"), catalogRows);
    assertTrue(metrics.contains("mongo_cdc_records_delivered"), "the worker published its metrics");
    for (String canary : List.of(EXCLUDED, HASHED)) {
      assertFalse(destination.contains(canary), () -> canary + " in the destination: " + destination);
      assertFalse(catalogRows.contains(canary), () -> canary + " in the catalog: " + catalogRows);
      assertFalse(history.contains(canary), () -> canary + " in the workflow history");
      assertFalse(statusJson.contains(canary), () -> canary + " in status: " + statusJson);
      assertFalse(metrics.contains(canary), () -> canary + " in the metrics");
      assertFalse(log.contains(canary), () -> canary + " in the log: " + log);
    }
  }

  /** An order whose customer has {@code email} and an address on {@code street}. */
  private static BsonDocument order(int id, String email, String street) {
    return new BsonDocument("_id", new BsonInt32(id)).append("customer", new BsonDocument("name", new BsonString("n"))
        .append("email", new BsonString(email))
        .append("address", new BsonDocument("street", new BsonString(street))));
  }

  private static String hmac(String value) throws Exception {
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    byte[] single = FieldRedactor.bytesOf(new RawBsonDocument(new BsonDocument("v", new BsonString(value)),
        new BsonDocumentCodec()));
    return HexFormat.of().formatHex(mac.doFinal(single));
  }

  /** Every row of every table of {@code schema}, as text, bytea included. */
  private static String everyRow(DataSource data, String schema) throws Exception {
    StringBuilder out = new StringBuilder();
    try (Connection c = data.getConnection(); Statement st = c.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = st.executeQuery("select format('%I.%I', table_schema, table_name) from information_schema.tables"
          + " where table_schema = '" + schema + "' and table_type = 'BASE TABLE'")) {
        while (rs.next()) {
          tables.add(rs.getString(1));
        }
      }
      for (String table : tables) {
        out.append(table).append('\n');
        try (ResultSet rs = st.executeQuery("select t::text from " + table + " t")) {
          while (rs.next()) {
            out.append(rs.getString(1)).append('\n');
          }
        }
        // bytea shows as hex in text: its BSON's strings, decoded, are what a reader would find.
        out.append(new String(byteaOf(st, table), StandardCharsets.UTF_8));
      }
    }
    return out.toString();
  }

  private static byte[] byteaOf(Statement st, String table) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ResultSet columns = st.getConnection().createStatement().executeQuery("select column_name from"
        + " information_schema.columns where format('%I.%I', table_schema, table_name) = '" + table.replace("'", "''")
        + "' and data_type = 'bytea'")) {
      while (columns.next()) {
        try (ResultSet rs = st.getConnection().createStatement().executeQuery("select \"" + columns.getString(1)
            + "\" from " + table)) {
          while (rs.next()) {
            byte[] value = rs.getBytes(1);
            if (value != null) {
              bytes.write(value);
            }
          }
        }
      }
    }
    return bytes.toByteArray();
  }

  private static long countRows(DataSource data, String table) throws Exception {
    try (Connection c = data.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select count(*) from " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
