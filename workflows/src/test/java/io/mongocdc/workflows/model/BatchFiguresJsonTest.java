package io.mongocdc.workflows.model;

import static io.mongocdc.workflows.model.BatchFigures.ATTEMPTS;
import static io.mongocdc.workflows.model.BatchFigures.COLUMN_DRIFT;
import static io.mongocdc.workflows.model.BatchFigures.END_REASON;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_READ;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_SKIPPED;
import static io.mongocdc.workflows.model.BatchFigures.FIRST_POSITION;
import static io.mongocdc.workflows.model.BatchFigures.FRESHNESS;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_QUARANTINED;
import static io.mongocdc.workflows.model.BatchFigures.STAGE_MILLIS;
import static io.mongocdc.workflows.model.BatchFigures.TABLES;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Batch figures and totals travel in workflow histories as JSON: a worker of this code reads what
 * the record classes of earlier workers wrote, and writes the same shape.
 */
class BatchFiguresJsonTest {

  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  /** BatchFigures as the record of the worker before the declarations wrote it. */
  private static final String RECORD_FIGURES = "{\"eventsRead\":13,\"recordsDelivered\":10,\"recordsExcluded\":1,"
      + "\"bytesRead\":1300,\"recordsByTable\":{\"public.orders\":10},\"durationMillis\":250,\"endReason\":\"IDLE_TIMEOUT\","
      + "\"attempts\":2,\"stageMillis\":{\"read\":5,\"readerBackPressure\":0,\"decode\":7},"
      + "\"tables\":{\"public.orders\":{\"sourceNamespace\":\"shop.orders\",\"inserts\":10,\"updates\":0,"
      + "\"replaces\":0,\"deletes\":0,\"bytes\":1000}},\"firstPosition\":\"00AA\",\"recordsQuarantined\":1,"
      + "\"historyRowsAppended\":0,\"historyRowsPruned\":0,\"columnDrift\":{},\"freshness\":{\"p50Millis\":3,"
      + "\"p99Millis\":9,\"maxMillis\":12,\"visibleThroughMillis\":1700000000000},"
      + "\"eventsSkipped\":{\"createIndexes\":1,\"futureOp\":2}}";

  /** The value as JSON, read back as text is (so numbers compare by value, whatever their Java type). */
  private static JsonNode written(Object value) throws Exception {
    return JSON.readTree(JSON.writeValueAsString(value));
  }

  @Test
  void figuresWrittenByTheRecordReadTheSameAndAreWrittenBackAsTheyWere() throws Exception {
    BatchFigures figures = JSON.readValue(RECORD_FIGURES, BatchFigures.class);

    assertEquals(13L, figures.get(EVENTS_READ));
    assertEquals(10L, figures.get(RECORDS_DELIVERED));
    assertEquals(2, figures.get(ATTEMPTS));
    assertEquals("IDLE_TIMEOUT", figures.get(END_REASON));
    assertEquals(List.of("read", "readerBackPressure", "decode"), List.copyOf(figures.get(STAGE_MILLIS).keySet()),
        "stage timings keep their order");
    assertEquals(new TableFigures("shop.orders", 10, 0, 0, 0, 1000), figures.get(TABLES).get("public.orders"));
    assertEquals("00AA", figures.get(FIRST_POSITION));
    assertEquals(1L, figures.get(RECORDS_QUARANTINED));
    assertEquals(new BatchFreshness(3, 9, 12, 1_700_000_000_000L), figures.get(FRESHNESS));
    assertEquals(Map.of("createIndexes", 1L, "futureOp", 2L), figures.get(EVENTS_SKIPPED));
    assertEquals(JSON.readTree(RECORD_FIGURES), written(figures));
    assertEquals(RECORD_FIGURES, JSON.writeValueAsString(figures), "the same fields, in the same order");
  }

  @Test
  void aFigureAnEarlierWorkerDidNotWriteReadsAsEmptyAndStaysUnwritten() throws Exception {
    String before = "{\"eventsRead\":3,\"recordsDelivered\":3,\"tables\":null,\"freshness\":null,\"unknownLater\":1}";
    BatchFigures figures = JSON.readValue(before, BatchFigures.class);

    assertEquals(Map.of(), figures.get(EVENTS_SKIPPED));
    assertEquals(Map.of(), figures.get(COLUMN_DRIFT));
    assertNull(figures.get(TABLES));
    assertNull(figures.get(ATTEMPTS), "unknown, not 0");
    assertFalse(figures.knows(EVENTS_SKIPPED));
    assertEquals(JSON.readTree("{\"eventsRead\":3,\"recordsDelivered\":3,\"tables\":null,\"freshness\":null}"),
        written(figures), "a field no figure names is dropped, the rest written as read");
  }

  @Test
  void totalsWrittenByTheRecordReadTheSameAndAreWrittenBackAsTheyWere() throws Exception {
    String record = "{\"batches\":7,\"eventsRead\":70,\"recordsDelivered\":60,\"recordsExcluded\":10,"
        + "\"bytesRead\":7000,\"recordsQuarantined\":1,\"historyRowsAppended\":2,\"historyRowsPruned\":3,"
        + "\"columnDrift\":{\"public.orders\":{\"total\":4}},\"eventsSkipped\":{\"createIndexes\":2}}";
    MirrorTotals totals = JSON.readValue(record, MirrorTotals.class);

    assertEquals(7, totals.batches());
    assertEquals(60L, totals.get(RECORDS_DELIVERED));
    assertEquals(Map.of("public.orders", Map.of("total", 4L)), totals.get(COLUMN_DRIFT));
    assertEquals(record, JSON.writeValueAsString(totals));
    assertEquals(JSON.writeValueAsString(MirrorTotals.ZERO), "{\"batches\":0,\"eventsRead\":0,\"recordsDelivered\":0,"
        + "\"recordsExcluded\":0,\"bytesRead\":0,\"recordsQuarantined\":0,\"historyRowsAppended\":0,"
        + "\"historyRowsPruned\":0,\"columnDrift\":{},\"eventsSkipped\":{}}", "new totals have the record's shape");
  }

  @Test
  void totalsWrittenBeforeAFigureExistedAddItFromTheNextBatch() throws Exception {
    MirrorTotals old = JSON.readValue("{\"batches\":1,\"eventsRead\":5,\"recordsDelivered\":5,\"recordsExcluded\":0,"
        + "\"bytesRead\":500,\"recordsQuarantined\":0,\"historyRowsAppended\":0,\"historyRowsPruned\":0}",
        MirrorTotals.class);
    BatchFigures batch = BatchFigures.zero().with(EVENTS_READ, 3).with(RECORDS_DELIVERED, 2)
        .with(EVENTS_SKIPPED, Map.of("futureOp", 1L));

    MirrorTotals after = old.plus(batch);

    assertEquals(2, after.batches());
    assertEquals(7L, after.get(RECORDS_DELIVERED));
    assertEquals(Map.of("futureOp", 1L), after.get(EVENTS_SKIPPED));
    assertFalse(after.figures().knows(ATTEMPTS), "the totals keep only totalled figures");
  }

  @Test
  void aRetryCarriesTheFiguresCountedOverAttemptsAndTakesTheRestFromTheLastAttempt() {
    BatchFigures earlier = BatchFigures.none().with(EVENTS_READ, 20).with(RECORDS_DELIVERED, 20)
        .with(FIRST_POSITION, "00AA").with(EVENTS_SKIPPED, Map.of("futureOp", 1L))
        .with(TABLES, Map.of("t", new TableFigures("db.t", 20, 0, 0, 0, 200)));
    BatchFigures last = BatchFigures.zero().with(EVENTS_READ, 12).with(RECORDS_DELIVERED, 10)
        .with(FIRST_POSITION, "00BB").with(EVENTS_SKIPPED, Map.of("futureOp", 1L, "createIndexes", 1L))
        .with(TABLES, Map.of("t", new TableFigures("db.t", 10, 0, 0, 0, 100))).with(ATTEMPTS, 2);

    BatchFigures batch = earlier.followedBy(last);

    assertEquals(12L, batch.get(EVENTS_READ), "events read are the last attempt's");
    assertEquals(30L, batch.get(RECORDS_DELIVERED));
    assertEquals("00AA", batch.get(FIRST_POSITION), "the first known position");
    assertEquals(Map.of("createIndexes", 1L, "futureOp", 2L), batch.get(EVENTS_SKIPPED));
    assertEquals(new TableFigures("db.t", 30, 0, 0, 0, 300), batch.get(TABLES).get("t"));
    assertEquals(2, batch.get(ATTEMPTS));
    assertNull(BatchFigures.none().with(TABLES, null).followedBy(last).get(TABLES),
        "tables unknown to an earlier attempt stay unknown");
    assertEquals(last, BatchFigures.none().followedBy(last), "a first attempt's figures are its own");
  }
}
