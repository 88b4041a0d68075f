package io.mongocdc.activities;

import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.ports.QuarantinedEvent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Operation;
import io.mongocdc.destination.PostgresMirrorDestination;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.pipeline.PoisonEvent;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.UnknownEventPolicy;
import io.mongocdc.workflows.model.TypedColumn;
import io.mongocdc.workflows.model.TypedColumnSettings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code mirror replay-quarantine} (issue 16): quarantined events are applied again once their
 * cause is gone, a newer change of the same document still wins, one refused again stays
 * quarantined with its new reason, and a second replay applies nothing twice.
 */
class QuarantineReplayTest {

  private static final MirrorConfig MIRROR = Fixtures.orders();

  private DataSource database;
  private PostgresCheckpointCatalog catalog;
  private PostgresMirrorDestination destination;

  @BeforeEach
  void setUp() {
    database = EmbeddedPostgresSupport.newCatalogDatabase("quarantine");
    Catalog opened = Catalog.open(database);
    catalog = new PostgresCheckpointCatalog(opened);
    catalog.register(MIRROR);
    String url = EmbeddedPostgresSupport.jdbcUrl(database);
    destination = new PostgresMirrorDestination(new ConfiguredPeerRegistry(Map.of("warehouse-pg", url), Map.of()),
        PostgresSinkOptions.defaults(), new io.mongocdc.catalog.PostgresTableOwnership(opened));
    destination.createTables(MIRROR);
  }

  @Test
  void replayAppliesWhatCanBeAppliedNowKeepsTheRestAndNeverAppliesTwice() throws Exception {
    ChangeEvents events = new ChangeEvents();
    RawBsonDocument older = events.insert(Fixtures.ORDERS, order(1, "quarantined"));
    RawBsonDocument undecodable = events.insert(Fixtures.ORDERS, order(2, "was undecodable"));
    RawBsonDocument newer = events.insert(Fixtures.ORDERS, order(1, "streamed later"));
    String hugeKey = "\"" + "k".repeat(3_000) + "\"";
    // Applied by the mirror after the quarantined event of the same document.
    apply(record(Operation.INSERT, "1", "{\"_id\": 1, \"state\": \"streamed later\"}", ResumeToken.ofEvent(newer)));
    catalog.setAside(MIRROR.name(), 4, PoisonEvent.refused(
        record(Operation.INSERT, "1", "{\"_id\": 1, \"state\": \"quarantined\"}", ResumeToken.ofEvent(older)),
        "scripted refusal, fixed since"));
    catalog.setAside(MIRROR.name(), 4, new PoisonEvent(ResumeToken.ofEvent(undecodable), null, null, null, null, null,
        null, bytes(undecodable), "a renderer bug, fixed since"));
    catalog.setAside(MIRROR.name(), 5, PoisonEvent.refused(
        record(Operation.INSERT, hugeKey, "{}", ResumeToken.of(ResumeToken.ofEvent(newer).data() + "FF")),
        "its _id is too long"));

    QuarantineReplay.Result first = new QuarantineReplay(destination, catalog).replay(MIRROR);

    assertEquals(new QuarantineReplay.Result(2, 1), first);
    assertEquals("streamed later", state("1"), "the newer streamed change still wins");
    assertEquals("was undecodable", state("2"), "the raw event was decoded again and applied");
    List<QuarantinedEvent> left = catalog.quarantined(MIRROR.name());
    assertEquals(1, left.size());
    assertEquals(hugeKey, left.get(0).event().key());
    assertEquals(1, left.get(0).replayAttempts());
    assertTrue(left.get(0).event().reason().contains("2600"), left.get(0).event().reason());

    assertEquals(new QuarantineReplay.Result(0, 1), new QuarantineReplay(destination, catalog).replay(MIRROR));
    assertEquals(2, catalog.quarantined(MIRROR.name()).get(0).replayAttempts());
  }

  @Test
  void aKeptDocumentReplayedFillsItsTypedColumnsFromIt() throws Exception {
    MirrorConfig typed = Fixtures.orders(MIRROR.settings().withColumns(new TypedColumnSettings(
        Map.of(Fixtures.ORDERS.collection(), List.of(new TypedColumn("state", "text", "state"))), null)));
    RawBsonDocument event = new ChangeEvents().insert(Fixtures.ORDERS, order(3, "kept"));
    catalog.setAside(typed.name(), 4, PoisonEvent.refused(
        record(Operation.INSERT, "3", "{\"_id\": 3, \"state\": \"kept\"}", ResumeToken.ofEvent(event)),
        "scripted refusal, fixed since"));

    assertEquals(new QuarantineReplay.Result(1, 0), new QuarantineReplay(destination, catalog).replay(typed));
    try (Connection c = database.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select state from public.\"shop.orders\" where \"_id\" = '3'")) {
      assertTrue(rs.next());
      assertEquals("kept", rs.getString(1), "the typed column, from the kept document");
    }
  }

  @Test
  void anEventOfAnUnknownTypeIsRefusedAgainUntilTheMirrorPassesOverItThenIsDoneWith() throws Exception {
    RawBsonDocument future = new ChangeEvents().ofType("futureOp", Fixtures.ORDERS);
    catalog.setAside(MIRROR.name(), 4, new PoisonEvent(ResumeToken.ofEvent(future), null, null, null, null, null,
        null, bytes(future), "unknown operationType 'futureOp'"));

    assertEquals(new QuarantineReplay.Result(0, 1), new QuarantineReplay(destination, catalog).replay(MIRROR));
    assertTrue(catalog.quarantined(MIRROR.name()).get(0).event().reason().contains("unknown operationType 'futureOp'"));

    MirrorConfig skipping = Fixtures.orders(MIRROR.settings().with(MirrorSettings.UNKNOWN_EVENT_POLICY,
        UnknownEventPolicy.SKIP));
    assertEquals(new QuarantineReplay.Result(1, 0), new QuarantineReplay(destination, catalog).replay(skipping));
    assertEquals(List.of(), catalog.quarantined(MIRROR.name()), "nothing left to replay, nothing written");
  }

  @Test
  void aBatchReplayedAfterAFailureMeetsItsEventAgainAndKeepsOneRow() {
    ChangeRecord record = record(Operation.INSERT, "7", "{}", ResumeToken.of("8200000001000000012B0404"));
    catalog.setAside(MIRROR.name(), 1, PoisonEvent.refused(record, "first attempt"));
    catalog.setAside(MIRROR.name(), 1, PoisonEvent.refused(record, "second attempt"));

    List<QuarantinedEvent> kept = catalog.quarantined(MIRROR.name());
    assertEquals(1, kept.size());
    assertEquals("second attempt", kept.get(0).event().reason());
    assertNull(kept.get(0).event().rawEvent());
  }

  private static BsonDocument order(int id, String state) {
    return new BsonDocument("_id", new BsonInt32(id)).append("state", new BsonString(state));
  }

  private static byte[] bytes(RawBsonDocument event) {
    java.nio.ByteBuffer buffer = event.getByteBuffer().asNIO();
    byte[] raw = new byte[buffer.remaining()];
    buffer.get(raw);
    return raw;
  }

  private static ChangeRecord record(Operation op, String key, String document, ResumeToken position) {
    return ChangeRecord.builder().operation(op).source(Fixtures.ORDERS).table("shop.orders").key(key).document(document)
        .position(position).commitTime(Instant.EPOCH).sourceBytes(10).build();
  }

  private void apply(ChangeRecord record) throws Exception {
    try (RecordSink sink = destination.openSink(MIRROR, 1)) {
      sink.write(List.of(record));
      sink.commit();
    }
  }

  private String state(String key) throws Exception {
    try (Connection c = database.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select doc->>'state' from public.\"shop.orders\" where \"_id\" = '" + key + "'")) {
      return rs.next() ? rs.getString(1) : null;
    }
  }
}
