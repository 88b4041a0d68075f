package io.mongocdc.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DriverJsonKeyRenderer;
import io.mongocdc.decode.DriverJsonRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.pipeline.DecodedBytesBudget;
import io.mongocdc.pipeline.ProgressListener;
import io.mongocdc.pipeline.PullRecords;
import io.mongocdc.pipeline.PullRecordsException;
import io.mongocdc.pipeline.PullSettings;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.source.ChangeStreamException;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.devtools.generator.ResumeTokens;
import io.mongocdc.source.scripted.ChangeEvents;
import io.mongocdc.source.scripted.ManualClock;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.junit.jupiter.api.Test;

/**
 * Scripted change events with pre-images and update descriptions, through the pipeline (parallel
 * decode, commits every few records) into the history table, with a source failure mid-stream and
 * replays from the failed attempt's checkpoint and from the start.
 */
class HistoryPipelineTest {

  private static final StreamPosition START =
      StreamPosition.after(ResumeTokens.highWaterMark(new BsonTimestamp(1_699_999_999, 1)));
  private static final Namespace ORDERS = new Namespace("shop", "orders");

  private final DataSource dataSource = EmbeddedPostgresSupport.newDatabase("history_pipeline");
  private final Predicate<Namespace> keepsHistory = ORDERS::equals;

  private static BsonDocument order(int id, int revision) {
    return new BsonDocument("_id", new BsonInt32(id)).append("rev", new BsonInt32(revision))
        .append("note", new BsonString("n" + revision));
  }

  /** Per key: insert, two updates (pre-image, one field set, one removed), then a delete with its pre-image. */
  private static List<RawBsonDocument> events() {
    ChangeEvents events = new ChangeEvents();
    List<RawBsonDocument> script = new ArrayList<>();
    for (int id = 1; id <= 8; id++) {
      script.add(events.insert(ORDERS, order(id, 0)));
    }
    for (int id = 1; id <= 8; id++) {
      for (int rev = 1; rev <= 2; rev++) {
        BsonDocument after = order(id, rev);
        after.remove("note");
        script.add(ChangeEvents.withPreImage(events.update(ORDERS, new BsonInt32(id), after,
            new BsonDocument("rev", new BsonInt32(rev)), List.of("note"), new BsonArray()),
            rev == 1 ? order(id, 0) : withoutNote(order(id, 1))));
      }
    }
    for (int id = 1; id <= 4; id++) {
      script.add(ChangeEvents.withPreImage(events.delete(ORDERS, new BsonInt32(id)), withoutNote(order(id, 2))));
    }
    return script;
  }

  private static BsonDocument withoutNote(BsonDocument document) {
    document.remove("note");
    return document;
  }

  private PullRecords pull(ScriptedChangeStream stream, ManualClock clock) {
    return new PullRecords("history", stream,
        new ChangeEventDecoder(new DriverJsonRenderer(), new DriverJsonKeyRenderer(), TableNaming.instance(),
            keepsHistory, ColumnProjections.NONE),
        MirrorSettings.defaults().toBuilder().decodeWorkers(3).chunkSize(4).idleTimeoutSeconds(3)
            .maxBatchDurationSeconds(3_600).build(),
        PullSettings.builder().commitIntervalRecords(6).shutdownTimeout(Duration.ofSeconds(10)).build(), clock,
        DecodedBytesBudget.ofDefaultSize());
  }

  private PostgresRecordSink sink(List<DestinationTable> tables) throws SQLException {
    return PostgresRecordSink.builder(dataSource, PostgresSinkOptions.defaults(), tables.subList(0, 1))
        .keepsHistory(keepsHistory).open();
  }

  @Test
  void everyEventOnceWithItsPreImageAndUpdateDescriptionAfterAFailureAndReplays() throws Exception {
    List<RawBsonDocument> script = events();
    List<DestinationTable> tables;
    try (Connection c = dataSource.getConnection()) {
      tables = PostgresDestination.setUp(c, "public", List.of(ORDERS), keepsHistory);
    }
    ManualClock clock = new ManualClock();
    ScriptedChangeStream failing = ScriptedChangeStream.builder().events(script).clock(clock, Duration.ofSeconds(1))
        .build().failAt(17, new ChangeStreamException("Prematurely reached end of stream", 0, true, null));

    StreamPosition delivered;
    try (PostgresRecordSink sink = sink(tables)) {
      PullRecordsException failed = assertThrows(PullRecordsException.class,
          () -> pull(failing, clock).pull(START, sink, ProgressListener.none()));
      delivered = failed.delivered().deliveredCheckpoint();
    }
    assertTrue(historyRows() < script.size(), "at most a committed prefix: " + historyRows());
    for (StreamPosition from : List.of(delivered, START)) { // the retry, then a replay of everything
      ScriptedChangeStream stream = ScriptedChangeStream.builder().events(script).clock(clock, Duration.ofSeconds(1))
          .build();
      try (PostgresRecordSink sink = sink(tables)) {
        pull(stream, clock).pull(from, sink, ProgressListener.none());
      }
    }

    assertEquals(script.size(), historyRows(), "each of the " + script.size() + " events once");
    assertEquals(List.of("delete 4 4 0", "insert 8 0 0", "update 16 16 16"), byOperation());
    assertEquals("true", single("select (doc_before = '{\"_id\": 3, \"rev\": 1}'::jsonb"
        + " and doc = '{\"_id\": 3, \"rev\": 2}'::jsonb and \"updateDescription\" = '{\"updatedFields\": {\"rev\": 2},"
        + " \"removedFields\": [\"note\"], \"truncatedArrays\": []}'::jsonb)::text from public.\"shop.orders_history\""
        + " where \"_id\" = '3' and \"_operation\" = 'update' order by \"_position\" desc limit 1"),
        "the last update of 3: its pre-image, post-image and update description");
  }

  private long historyRows() throws SQLException {
    return Long.parseLong(single("select count(*) from public.\"shop.orders_history\""));
  }

  /** Per operation: rows, rows with a pre-image, rows with an update description. */
  private List<String> byOperation() throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("select \"_operation\", count(*), count(doc_before), count(\"updateDescription\")"
            + " from public.\"shop.orders_history\" group by 1 order by 1")) {
      while (rs.next()) {
        rows.add(rs.getString(1) + " " + rs.getLong(2) + " " + rs.getLong(3) + " " + rs.getLong(4));
      }
    }
    return rows;
  }

  private String single(String sql) throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
