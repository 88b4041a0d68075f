package io.mongocdc.workflows;

import static io.mongocdc.workflows.model.BatchFigures.ATTEMPTS;
import static io.mongocdc.workflows.model.BatchFigures.BYTES_READ;
import static io.mongocdc.workflows.model.BatchFigures.COLUMN_DRIFT;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_READ;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_SKIPPED;
import static io.mongocdc.workflows.model.BatchFigures.HISTORY_ROWS_APPENDED;
import static io.mongocdc.workflows.model.BatchFigures.HISTORY_ROWS_PRUNED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_EXCLUDED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_QUARANTINED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.BatchFreshness;
import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRules;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorTotals;
import io.mongocdc.workflows.model.RejectedEdit;
import io.mongocdc.workflows.model.SnapshotProgress;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The state continue-as-new carries: one object, written and read whole by the data converter. */
class CarriedStateTest {

  private static final DataConverter CONVERTER = DefaultDataConverter.STANDARD_INSTANCE;
  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();
  private static final MirrorConfig MIRROR = new MirrorConfig("orders", "src", "dst", "shop", List.of("orders"),
      "public", MirrorSettings.defaults());
  private static final Checkpoint CHECKPOINT = Checkpoint.afterToken("8265", 1_700_000_100, 3);
  private static final BatchFreshness FRESHNESS = new BatchFreshness(120, 480, 900, 1_700_000_000_000L);

  /**
   * The carried state as the next run reads it: written into a continue-as-new input by the data
   * converter, decoded into the raw value the workflow takes, and read as the workflow reads it.
   */
  static CarriedState throughTheDataConverter(CarriedState carried) {
    Payload payload = CONVERTER.toPayload(CdcFlowInput.continued(carried)).orElseThrow();
    return CdcFlowInput.fromJson(CONVERTER.fromPayload(payload, Object.class, Object.class)).carried();
  }

  @Test
  void everyFieldSurvivesTheDataConverter() throws Exception {
    CarriedState carried = everyFieldSet();
    CarriedState initial = CarriedState.initial(null);
    for (Field field : fields()) {
      // A field this test leaves as a new mirror has it would pass below even if never written.
      assertNotEquals(field.get(initial), field.get(carried), field.getName() + " is not set by this test");
    }

    CarriedState read = throughTheDataConverter(carried);

    for (Field field : fields()) {
      assertEquals(field.get(carried), field.get(read), field.getName() + " was not carried");
    }
  }

  @Test
  void aStateWrittenBeforeLaterFieldsExistedReadsWithTheirDefaults() throws Exception {
    // As the first workers wrote it (see histories/continue-as-new-second-run.json), and with
    // the lists and totals written as null.
    String old = "{\"config\":null,\"carried\":{\"config\":" + JSON.writeValueAsString(MIRROR)
        + ",\"setUp\":true,\"checkpoint\":{\"resumeToken\":\"8265\",\"clusterTimeSeconds\":1700000100,"
        + "\"clusterTimeIncrement\":3},\"lastBatchId\":2,\"committedAtMillis\":1796036354057,\"totals\":null,"
        + "\"paused\":true,\"failed\":false,\"pausedReason\":\"paused by the operator\",\"pendingEdits\":null,"
        + "\"rejectedEdits\":null,\"lastError\":null,\"lastErrorAtMillis\":null,\"failedAttempts\":0,\"run\":1,"
        + "\"snapshots\":null,\"sweepPending\":null,\"resyncNeeded\":null,\"typedColumnIndexesPending\":null}}";

    CarriedState read = CdcFlowInput.fromJson(JSON.readValue(old, Object.class)).carried();

    assertEquals(MIRROR, read.config);
    assertTrue(read.setUp);
    assertEquals(CHECKPOINT, read.checkpoint);
    assertEquals(2, read.lastBatchId);
    assertEquals(1, read.run);
    assertEquals("paused by the operator", read.pausedReason);
    assertEquals(MirrorTotals.ZERO, read.totals);
    assertEquals(List.of(), read.pendingEdits);
    assertEquals(List.of(), read.rejectedEdits);
    assertEquals(List.of(), read.snapshots);
    assertEquals(List.of(), read.sweepPending);
    assertFalse(read.resyncNeeded);
    assertFalse(read.typedColumnIndexesPending);
    assertNull(read.lastFailureType);
    assertEquals(0, read.stateChanges);
    assertNull(read.autoResyncedAtMillis);
    assertNull(read.typedColumnsBackfillFrom);
    assertNull(read.lastFreshness);
    assertEquals(List.of(), read.fieldRuleRewrites);
    assertEquals(Map.of(), read.hashedPaths);
    // The lists read are the state's own: the next run adds to them.
    read.pendingEdits.add(EditRequest.none().with(MirrorSettings.BATCH_SIZE, 5));
    read.sweepPending.add("orders");
    read.hashedPaths.put("orders", List.of("email"));
  }

  @Test
  void theFieldsAreWrittenByTheirNames() {
    // The names are those of the histories already written: renaming a field breaks them.
    Map<?, ?> json = JSON.convertValue(everyFieldSet(), Map.class);
    assertEquals(fields().stream().map(Field::getName).collect(Collectors.toSet()), json.keySet(),
        "one JSON field per field, and nothing else (a method named like a getter would add one)");
    assertTrue(json.keySet().containsAll(List.of("config", "setUp", "checkpoint", "lastBatchId", "committedAtMillis",
        "totals", "paused", "failed", "pausedReason", "pendingEdits", "rejectedEdits", "lastError",
        "lastErrorAtMillis", "failedAttempts", "run", "snapshots", "lastFailureType", "stateChanges", "sweepPending",
        "resyncNeeded", "autoResyncedAtMillis", "typedColumnsBackfillFrom", "typedColumnIndexesPending")));
  }

  @Test
  void continueAsNewIsHandedTheCarriedStateItselfCountedAsTheNextRun() {
    FlowState state = new FlowState(CarriedState.initial(MIRROR));
    BatchFigures figures = BatchFigures.zero().with(EVENTS_READ, 3).with(RECORDS_DELIVERED, 3).with(ATTEMPTS, 1)
        .with(BatchFigures.FRESHNESS, FRESHNESS);
    state.committed(new BatchOutcome(1, CHECKPOINT, figures, null, null), CHECKPOINT, 1_700_000_001_000L);

    CarriedState handed = state.carry();

    assertSame(state.carried, handed);
    assertEquals(1, handed.run);
    FlowState next = new FlowState(throughTheDataConverter(handed));
    assertEquals(FRESHNESS, next.status(1_700_000_002_000L).lastBatchFreshness(),
        "the last batch's freshness is carried with the rest");
    assertEquals(2_000L, next.status(1_700_000_002_000L).visibleLagMillis());
    assertEquals(1, next.status(0).committedBatchId());
  }

  private static List<Field> fields() {
    return Stream.of(CarriedState.class.getDeclaredFields())
        .filter(field -> !Modifier.isStatic(field.getModifiers()))
        .toList();
  }

  /** A state with every field set to something a new mirror's state does not have. */
  private static CarriedState everyFieldSet() {
    CarriedState carried = CarriedState.initial(MIRROR);
    carried.setUp = true;
    carried.checkpoint = CHECKPOINT;
    carried.startedFrom = Checkpoint.atOperationTime(1_700_000_000, 0);
    carried.chosenStart = Checkpoint.afterToken("8264", 0, 0);
    carried.lastBatchId = 7;
    carried.committedAtMillis = 1_700_000_101_000L;
    carried.totals = new MirrorTotals(7, BatchFigures.zero().with(EVENTS_READ, 70).with(RECORDS_DELIVERED, 60)
        .with(RECORDS_EXCLUDED, 10).with(BYTES_READ, 7000).with(RECORDS_QUARANTINED, 1).with(HISTORY_ROWS_APPENDED, 2)
        .with(HISTORY_ROWS_PRUNED, 3).with(COLUMN_DRIFT, Map.of("public.orders", Map.of("total", 4L)))
        .with(EVENTS_SKIPPED, Map.of("createIndexes", 2L)));
    carried.freshSnapshotPlans.add("orders");
    carried.copiesBetweenBatches.add("orders");
    carried.paused = true;
    carried.failed = true;
    carried.pausedReason = "failed: boom";
    carried.pendingEdits.add(EditRequest.none().with(MirrorSettings.BATCH_SIZE, 500));
    carried.rejectedEdits.add(new RejectedEdit(1_700_000_000_500L, "{\"chunkSize\":0}", "chunkSize must be positive"));
    carried.lastError = "boom";
    carried.lastErrorAtMillis = 1_700_000_102_000L;
    carried.failedAttempts = 3;
    carried.run = 4;
    carried.snapshots.add(new SnapshotProgress("orders", CHECKPOINT, SnapshotProgress.State.COPYING, 3, 2, 90, 120,
        1_700_000_000_000L, null));
    carried.lastFailureType = FailureTypes.TRANSIENT;
    carried.stateChanges = 12;
    carried.sweepPending.add("orders");
    carried.resyncNeeded = true;
    carried.autoResyncedAtMillis = 1_700_000_050_000L;
    carried.resyncStart = CHECKPOINT;
    carried.typedColumnsBackfillFrom = "\"abc\"";
    carried.typedColumnIndexesPending = true;
    carried.lastFreshness = FRESHNESS;
    FieldRuleSettings rules = new FieldRuleSettings(Map.of("orders", new FieldRules(List.of("a"), List.of("b"))));
    carried.fieldRuleRewrites.add(FieldRuleRewrite.of(rules, CHECKPOINT)
        .at("orders", FieldRuleRewrite.HISTORY, "8265", "\"k\"", 12));
    carried.fieldRuleRewrites.add(FieldRuleRewrite.pastCheckpoint(rules, CHECKPOINT));
    carried.hashedPaths.put("orders", List.of("b"));
    return carried;
  }
}
