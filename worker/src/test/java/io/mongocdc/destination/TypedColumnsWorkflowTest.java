package io.mongocdc.destination;

import static io.mongocdc.workflows.model.BatchFigures.COLUMN_DRIFT;
import static io.mongocdc.testing.WorkerEnvironment.awaitStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.decode.Namespace;
import io.mongocdc.snapshot.RevealedChangeStream;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.source.scripted.ScriptedSnapshotSource;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.SnapshotProgress;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.mongocdc.workflows.model.StopRequest;
import io.mongocdc.workflows.model.TypedColumn;
import io.mongocdc.workflows.model.TypedColumnSettings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.bson.BsonDateTime;
import org.bson.BsonDecimal128;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.bson.types.Decimal128;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.testing.TestPorts;

/**
 * Typed columns on a live mirror: the real workflow and activities, the PostgreSQL destination and
 * catalog, a scripted source. The snapshot and the stream write the declared columns with doc,
 * drift is counted in status and the catalog, the index is built after the snapshot, and an edit
 * adds a column (filled from doc for the rows already there) and drops another.
 */
class TypedColumnsWorkflowTest {

  private static final String SOURCE_PEER = "typed-mongo";
  private static final String DESTINATION_PEER = "typed-pg";
  private static final String DATABASE = "shop";
  private static final Namespace ORDERS = new Namespace(DATABASE, "orders");
  private static final String TABLE = TableNaming.tableName(ORDERS);

  @RegisterExtension
  static final WorkflowTestExtension fixture = WorkflowTestExtension.withDatabases("typed", SOURCE_PEER, DESTINATION_PEER);

  private static BsonDocument order(int id, BsonDocument amount) {
    BsonDocument doc = new BsonDocument("_id", new BsonInt32(id)).append("status", new BsonString("s" + id % 3))
        .append("placedAt", new BsonDateTime(1_700_000_000_000L + id * 1000L));
    return amount == null ? doc : doc.append("amount", amount);
  }

  private static BsonDocument total(String decimal) {
    return new BsonDocument("total", new BsonDecimal128(Decimal128.parse(decimal)));
  }

  @Test
  void snapshotAndStreamWriteTheColumnsDriftIsCountedAndAnEditFillsAndDropsColumns() throws Exception {
    ScriptedSnapshotSource snapshot = new ScriptedSnapshotSource(1).createCollection("orders");
    for (int i = 1; i <= 30; i++) {
      snapshot.put("orders", order(i, i == 7 ? new BsonDocument("total", new BsonString("n/a")) : total(i + ".50")));
    }
    ChangeEvents events = new ChangeEvents(1_700_000_000);
    List<RawBsonDocument> stream = new ArrayList<>();
    for (int i = 31; i <= 35; i++) {
      BsonDocument doc = order(i, i == 33 ? null : total(i + ".25")); // 33 has no amount: drift
      stream.add(events.insert(ORDERS, doc));
    }
    BsonDocument changed = order(7, total("7.75")); // the drifted row converts now
    stream.add(events.update(ORDERS, new BsonInt32(7), changed, new BsonDocument("amount", total("7.75"))));
    stream.add(events.insert(ORDERS, order(36, total("1"))));  // after the first edit
    stream.add(events.insert(ORDERS, order(37, total("2"))));  // after the second edit
    RevealedChangeStream changes = new RevealedChangeStream(stream);
    changes.reveal(6);

    String name = "typed1";
    MirrorSettings settings = MirrorSettings.defaults().toBuilder().batchSize(1_000).idleTimeoutSeconds(1).maxBatchDurationSeconds(600).decodeWorkers(2).chunkSize(16)
        .snapshot(new SnapshotSettings(true, 10, 2, null)).build().withColumns(new TypedColumnSettings(
            Map.of("orders", List.of(new TypedColumn("status", "text", "status"),
                new TypedColumn("total", "numeric", "amount.total"))),
            Map.of("orders", List.of("status"))));
    MirrorConfig mirror = new MirrorConfig(name, SOURCE_PEER, DESTINATION_PEER, DATABASE, List.of("orders"), name,
        settings);
    CdcFlowWorkflow workflow = start(snapshot, changes, mirror);

    // The batches stream beside the copy; the index is built in a turn after it, before a later batch.
    MirrorStatus copied = awaitStatus(workflow, s -> s.snapshots().stream().allMatch(SnapshotProgress::done));
    MirrorStatus first = awaitStatus(workflow,
        s -> changes.deliveredThrough(s, 5) && s.committedBatchId() >= copied.committedBatchId() + 2);
    String table = TableNaming.qualified(name, TABLE);
    assertEquals(0, count("select count(*) from " + table + " where status is distinct from doc->>'status'"));
    assertEquals(0, count("select count(*) from " + table
        + " where total is distinct from (doc->'amount'->'total'->>'$numberDecimal')::numeric"));
    assertEquals(List.of("33"), keys("select _id from " + table + " where _drift ? 'total' order by _id"),
        "row 7's drift went with the update that made it convert; 33 has no amount");
    assertEquals("{\"bsonType\": \"missing\"}", text("select _drift->>'total' from " + table
        + " where _id = '33'").replace("\"{", "{"));
    assertEquals("7.75", text("select total::text from " + table + " where _id = '7'"));
    // Counted once in the snapshot (row 7) and once in the stream (row 33).
    assertEquals(Map.of(TABLE, Map.of("total", 2L)), first.totals().get(COLUMN_DRIFT));
    assertEquals(2, countIn(fixture.catalog(), "select drifted from mongo_cdc.column_drift where mirror_name = '" + name
        + "' and destination_table = '" + TABLE + "' and column_name = 'total'"));
    assertEquals(1, count("select count(*) from pg_indexes where schemaname = '" + name + "' and indexname = '"
        + TypedColumnIndexes.preferredName(new DestinationTable(ORDERS, name, TABLE), "status") + "'"),
        "the index is built after the snapshot");

    // Added by an edit: the column appears and the rows already there are filled from doc.
    workflow.edit(Map.of("columns", Map.of("orders", List.of(
        Map.of("name", "placed", "type", "timestamptz", "path", "placedAt")))));
    awaitStatus(workflow, s -> s.config().settings().columns().of("orders").size() == 3);
    changes.reveal(7);
    awaitStatus(workflow, s -> changes.deliveredThrough(s, 6));
    assertEquals(36, count("select count(*) from " + table + " where placed is not null"));
    assertEquals(0, count("select count(*) from " + table
        + " where placed is distinct from (doc->'placedAt'->>'$date')::timestamptz"));

    // Removed with its data.
    workflow.edit(Map.of("removeColumns", Map.of("orders", List.of("status")), "dropColumnData", true));
    awaitStatus(workflow, s -> s.config().settings().columns().of("orders").size() == 2);
    changes.reveal(8);
    MirrorStatus last = awaitStatus(workflow, s -> changes.deliveredThrough(s, 7));
    assertEquals(0, count("select count(*) from information_schema.columns where table_schema = '" + name
        + "' and table_name = '" + TABLE + "' and column_name = 'status'"));
    assertEquals(37, count("select count(*) from " + table + " where placed is not null and total is not null"
        + " or _id = '33'"));
    assertEquals(List.of("placed", "total"), last.config().settings().columns().of("orders").stream()
        .map(TypedColumn::name).sorted().toList());
    workflow.terminate(new StopRequest(false));
    fixture.temporal().captureWhenClosed(name, "typed-columns-edit");
  }

  private CdcFlowWorkflow start(ScriptedSnapshotSource snapshot, RevealedChangeStream stream, MirrorConfig mirror) {
    WorkerPorts ports = TestPorts.postgres(fixture).source(ScriptedSource.builder().stream(stream).snapshot(snapshot)
        .now(StreamPosition.atOperationTime(new BsonTimestamp(1_700_000_000, 0))).build()).build();
    fixture.start().startWorker(fixture.peers(), ports);
    return fixture.temporal().start(mirror);
  }

  private static long count(String sql) throws SQLException {
    return countIn(fixture.destination(), sql);
  }

  private static long countIn(DataSource data, String sql) throws SQLException {
    try (Connection c = data.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String text(String sql) throws SQLException {
    try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static List<String> keys(String sql) throws SQLException {
    List<String> keys = new ArrayList<>();
    try (Connection c = fixture.destination().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        keys.add(rs.getString(1));
      }
    }
    return keys;
  }
}
