package io.mongocdc.activities;

import static io.mongocdc.workflows.model.BatchFigures.EVENTS_READ;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_SKIPPED;
import static io.mongocdc.workflows.model.BatchFigures.FIRST_POSITION;
import static io.mongocdc.workflows.model.BatchFigures.HISTORY_ROWS_APPENDED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_QUARANTINED;
import static io.mongocdc.workflows.model.BatchFigures.STAGE_MILLIS;
import static io.mongocdc.workflows.model.BatchFigures.TABLES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.TableFigures;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** A retry on a worker of this code reads the heartbeat an earlier worker sent, and sends the same shape. */
class PullHeartbeatJsonTest {

  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();
  private static final Checkpoint DELIVERED = Checkpoint.afterToken("00CC", 1_700_000_000, 1);

  /** A heartbeat as the record of the worker before the figure declarations wrote it. */
  private static String recordHeartbeat() throws Exception {
    return "{\"batchId\":3,\"delivered\":" + JSON.writeValueAsString(DELIVERED) + ",\"eventsRead\":30,"
        + "\"recordsDelivered\":16,\"attempt\":2,\"stageMillis\":{\"read\":5,\"decode\":7},"
        + "\"tables\":{\"public.orders\":{\"sourceNamespace\":\"shop.orders\",\"inserts\":16,\"updates\":0,"
        + "\"replaces\":0,\"deletes\":0,\"bytes\":1600}},\"firstPosition\":\"00AA\",\"recordsQuarantined\":1,"
        + "\"historyRowsAppended\":4,\"visibleThroughMillis\":1700000000000,\"eventsSkipped\":{\"futureOp\":2},"
        + "\"waitingSinceMillis\":null}";
  }

  @Test
  void aHeartbeatOfTheEarlierWorkerReadsTheSame() throws Exception {
    PullHeartbeat beat = DataConverter.getDefaultInstance().fromPayloads(0,
        Optional.of(io.temporal.api.common.v1.Payloads.newBuilder()
            .addPayloads(DataConverter.getDefaultInstance().toPayload(JSON.readTree(recordHeartbeat())).orElseThrow())
            .build()), PullHeartbeat.class, PullHeartbeat.class);

    assertEquals(3, beat.batchId());
    assertEquals(DELIVERED, beat.delivered());
    assertEquals(2, beat.attempt());
    assertEquals(30L, beat.figures().get(EVENTS_READ));
    assertEquals(16L, beat.figures().get(RECORDS_DELIVERED));
    assertEquals(Map.of("read", 5L, "decode", 7L), beat.figures().get(STAGE_MILLIS));
    assertEquals(new TableFigures("shop.orders", 16, 0, 0, 0, 1600), beat.figures().get(TABLES).get("public.orders"));
    assertEquals("00AA", beat.figures().get(FIRST_POSITION));
    assertEquals(1L, beat.figures().get(RECORDS_QUARANTINED));
    assertEquals(4L, beat.figures().get(HISTORY_ROWS_APPENDED));
    assertEquals(Map.of("futureOp", 2L), beat.figures().get(EVENTS_SKIPPED));
    assertEquals(1_700_000_000_000L, beat.visibleThroughMillis());
    assertNull(beat.waitingSinceMillis());
  }

  @Test
  void aHeartbeatOfThisWorkerHasTheEarlierShapeAndReadsBack() throws Exception {
    PullHeartbeat beat = JSON.readValue(recordHeartbeat(), PullHeartbeat.class);
    JsonNode written = JSON.readTree(JSON.writeValueAsString(beat));

    assertEquals(JSON.readTree(recordHeartbeat()), written, "the same fields and values");
    assertEquals(beat, JSON.treeToValue(written, PullHeartbeat.class));
  }

  @Test
  void aHeartbeatBeforeSomeFiguresExistedLeavesThemUnknown() throws Exception {
    PullHeartbeat beat = JSON.readValue("{\"batchId\":1,\"delivered\":null,\"eventsRead\":5,\"recordsDelivered\":5,"
        + "\"attempt\":1}", PullHeartbeat.class);

    assertFalse(beat.figures().knows(EVENTS_SKIPPED));
    assertEquals(Map.of(), beat.figures().get(EVENTS_SKIPPED));
    assertNull(beat.visibleThroughMillis());
    Set<String> fields = new TreeSet<>();
    JSON.valueToTree(PullHeartbeat.nothingYet(1, 1).waitingSince(5)).fieldNames().forEachRemaining(fields::add);
    assertEquals(new TreeSet<>(Set.of("batchId", "delivered", "attempt", "visibleThroughMillis",
        "waitingSinceMillis")), fields, "a heartbeat that knows no figure writes none");
  }
}
