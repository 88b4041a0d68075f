package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Reading the workflow's input raw: what the SDK would bind, and plain reasons when it does not fit. */
class CdcFlowInputTest {

  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();
  private static final MirrorConfig MIRROR = new MirrorConfig("orders", "orders-mongo", "warehouse-pg", "shop",
      List.of("orders"), "public", MirrorSettings.defaults());

  @Test
  void readsWhatTheDataConverterWouldHaveBound() throws Exception {
    CdcFlowInput input = CdcFlowInput.newMirror(MIRROR);
    Object decoded = JSON.readValue(JSON.writeValueAsBytes(input), Object.class);
    assertEquals(input, CdcFlowInput.fromJson(decoded));
    CdcFlowInput continued = CdcFlowInput.continued(CarriedState.initial(MIRROR));
    // The carried state is a mutable object without equals: compared as the JSON it is written as.
    assertEquals(JSON.valueToTree(continued),
        JSON.valueToTree(CdcFlowInput.fromJson(JSON.readValue(JSON.writeValueAsBytes(continued), Object.class))));
  }

  @Test
  void aCarriedPendingEditIsReadBackAsWrittenAndAsTheRecordOfOlderWorkersWroteIt() throws Exception {
    EditRequest edit = EditRequest.none().with(MirrorSettings.BATCH_SIZE, 500)
        .with(MirrorSettings.CONTROL_EVENT_POLICY, ControlEventPolicy.IGNORE)
        .with(MirrorSettings.COLUMNS, Map.of("orders", List.of(new TypedColumn("status", "text", "status"))));
    CarriedState carried = CarriedState.initial(MIRROR);
    carried.pendingEdits.add(edit);
    CdcFlowInput continued = CdcFlowInput.continued(carried);
    assertEquals(List.of(edit), CdcFlowInput.fromJson(JSON.readValue(JSON.writeValueAsBytes(continued), Object.class))
        .carried().pendingEdits);

    // Older workers wrote the edit as a record: every field, null where the edit left it alone.
    Map<String, Object> recordShape = new java.util.LinkedHashMap<>();
    EditRequest.FIELDS.forEach(field -> recordShape.put(field, null));
    recordShape.put("batchSize", 500);
    recordShape.put("controlEventPolicy", "IGNORE");
    assertEquals(EditRequest.none().with(MirrorSettings.BATCH_SIZE, 500)
            .with(MirrorSettings.CONTROL_EVENT_POLICY, ControlEventPolicy.IGNORE),
        JSON.readValue(JSON.writeValueAsBytes(recordShape), EditRequest.class));
  }

  @Test
  void aPolicyThatNamesNoneIsNamedWithTheChoices() {
    assertEquals("config.settings.controlEventPolicy must be PAUSE or IGNORE, got \"SKIP\"",
        problem(settings -> settings.put("controlEventPolicy", "SKIP")));
  }

  @Test
  void anUnknownSettingIsNamedWithTheFieldsSettingsTake() {
    assertEquals("config.settings has an unknown field \"batchSise\" (known fields: batchSize, idleTimeoutSeconds, "
            + "maxBatchDurationSeconds, decodeWorkers, chunkSize, excludedOperations, controlEventPolicy, "
            + "continueAsNewEveryBatches, splitLargeEvents, snapshot, poisonEventPolicy, autoResync, "
            + "verifyDocumentsPerSecond, history, columns, maxVisibilityDelay, unknownEventPolicy, fieldRules)",
        problem(settings -> settings.put("batchSise", settings.remove("batchSize"))));
  }

  @Test
  void anUnknownTopLevelFieldIsNamed() {
    assertEquals("the input has an unknown field \"mirror\" (known fields: config, carried, resync, startAt)",
        CdcFlowInputTest.problemOf(Map.of("mirror", Map.of())));
  }

  @Test
  void aValueOfTheWrongTypeIsNamedWithWhatWasSent() {
    assertEquals("config.settings.batchSize must be a whole number, got \"lots\"",
        problem(settings -> settings.put("batchSize", "lots")));
    assertEquals("config.settings.excludedOperations must be a list, got {\"delete\":true}",
        problem(settings -> settings.put("excludedOperations", Map.of("delete", true))));
    assertEquals("config.settings.splitLargeEvents must be true or false, got [true]",
        problem(settings -> settings.put("splitLargeEvents", List.of(true))));
    assertEquals("config.settings must be a JSON object, got \"fast\"",
        CdcFlowInputTest.problemOf(Map.of("config", Map.of("name", "orders", "settings", "fast"))));
  }

  @Test
  void anInputThatIsNotAnObjectOrIsMissingIsRejected() {
    assertEquals("the input must be a JSON object, got \"yes\"", problemOf("yes"));
    assertEquals("the input must be a JSON object, got [1]", problemOf(List.of(1)));
    assertEquals("the workflow has no input; start it with {\"config\": {...}, \"carried\": null}", problemOf(null));
  }

  @SuppressWarnings("unchecked")
  private static String problem(Consumer<Map<String, Object>> changeSettings) {
    Map<String, Object> input = JSON.convertValue(CdcFlowInput.newMirror(MIRROR), Map.class);
    changeSettings.accept((Map<String, Object>) ((Map<String, Object>) input.get("config")).get("settings"));
    return problemOf(input);
  }

  private static String problemOf(Object input) {
    return assertThrows(IllegalArgumentException.class, () -> CdcFlowInput.fromJson(input)).getMessage();
  }
}
