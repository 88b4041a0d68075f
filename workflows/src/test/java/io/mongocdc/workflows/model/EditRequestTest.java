package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EditRequestTest {

  @Test
  void readsEveryEditableFieldFromJson() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("batchSize", 5000);
    body.put("idleTimeoutSeconds", 5L);
    body.put("maxBatchDurationSeconds", 30.0);
    body.put("decodeWorkers", 8);
    body.put("chunkSize", 64);
    body.put("excludedOperations", List.of("delete"));
    body.put("controlEventPolicy", "IGNORE");
    body.put("continueAsNewEveryBatches", 100);

    EditRequest edit = EditRequest.fromJson(body);

    assertEquals(EditRequest.none().with(MirrorSettings.BATCH_SIZE, 5000).with(MirrorSettings.IDLE_TIMEOUT_SECONDS, 5)
        .with(MirrorSettings.MAX_BATCH_DURATION_SECONDS, 30).with(MirrorSettings.DECODE_WORKERS, 8)
        .with(MirrorSettings.CHUNK_SIZE, 64).with(MirrorSettings.EXCLUDED_OPERATIONS, List.of("delete"))
        .with(MirrorSettings.CONTROL_EVENT_POLICY, ControlEventPolicy.IGNORE)
        .with(MirrorSettings.CONTINUE_AS_NEW_EVERY_BATCHES, 100), edit);
    assertEquals(body.keySet(), edit.toJson().keySet());
  }

  @Test
  void namesEveryProblemAtOnce() {
    InvalidEditException e = assertThrows(InvalidEditException.class, () -> EditRequest.fromJson(
        Map.of("batchSiz", 1, "chunkSize", "many", "excludedOperations", "delete", "decodeWorkers", 1e12)));
    assertEquals(4, e.problems().size(), e.getMessage());
    assertTrue(e.getMessage().contains("unknown field 'batchSiz'"));
    assertTrue(e.getMessage().contains("chunkSize must be a number, got \"many\""));
    assertTrue(e.getMessage().contains("excludedOperations must be a list of strings"));
    assertTrue(e.getMessage().contains("decodeWorkers must be a whole number within the integer range"));
  }

  @Test
  void anEmptyOrMissingEditIsRejected() {
    assertTrue(assertThrows(InvalidEditException.class, () -> EditRequest.fromJson(Map.of()))
        .getMessage().contains("changes nothing"));
    assertTrue(assertThrows(InvalidEditException.class, () -> EditRequest.fromJson(null))
        .getMessage().contains("has no body"));
  }

  @Test
  void aBodyThatIsNotAnObjectIsRejectedSayingWhatWasSent() {
    assertEquals(List.of("the edit must be a JSON object such as {\"batchSize\": 5000}, got \"yes\""),
        assertThrows(InvalidEditException.class, () -> EditRequest.fromJson("yes")).problems());
    assertEquals(List.of("the edit must be a JSON object such as {\"batchSize\": 5000}, got [5000]"),
        assertThrows(InvalidEditException.class, () -> EditRequest.fromJson(List.of(5000))).problems());
    assertEquals(List.of("the edit must be a JSON object such as {\"batchSize\": 5000}, got 5000"),
        assertThrows(InvalidEditException.class, () -> EditRequest.fromJson(5000)).problems());
  }

  @Test
  void aValueOfTheWrongTypeIsShownAsJson() {
    InvalidEditException e = assertThrows(InvalidEditException.class,
        () -> EditRequest.fromJson(Map.of("excludedOperations", List.of("delete", 7))));
    assertEquals(List.of("excludedOperations must be a list of strings, got [\"delete\",7]"), e.problems());
  }
}
