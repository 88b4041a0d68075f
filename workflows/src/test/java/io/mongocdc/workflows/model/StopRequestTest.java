package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StopRequestTest {

  @Test
  void noBodyAnEmptyObjectOrANullFlagFinishTheBatchInFlight() {
    assertEquals(StopRequest.AT_BATCH_BOUNDARY, StopRequest.fromJson("pause", null));
    assertEquals(StopRequest.AT_BATCH_BOUNDARY, StopRequest.fromJson("pause", Map.of()));
    Map<String, Object> nullFlag = new HashMap<>();
    nullFlag.put("cancelInFlight", null);
    assertEquals(StopRequest.AT_BATCH_BOUNDARY, StopRequest.fromJson("pause", nullFlag));
  }

  @Test
  void readsCancelInFlight() {
    assertEquals(new StopRequest(true), StopRequest.fromJson("terminate", Map.of("cancelInFlight", true)));
    assertEquals(new StopRequest(false), StopRequest.fromJson("terminate", Map.of("cancelInFlight", false)));
  }

  @Test
  void aFlagThatIsNotABooleanIsRejectedNamingTheSignal() {
    assertEquals("pause: \"cancelInFlight\" must be true or false, got \"yes\"", message("pause", Map.of("cancelInFlight", "yes")));
    assertEquals("terminate: \"cancelInFlight\" must be true or false, got 1", message("terminate", Map.of("cancelInFlight", 1)));
  }

  @Test
  void aBodyThatIsNotAnObjectIsRejected() {
    for (Object body : List.of("yes", true, 1, List.of())) {
      assertEquals("pause: the body must be a JSON object such as {\"cancelInFlight\": true}, or nothing, got "
          + JsonText.of(body), message("pause", body));
    }
  }

  @Test
  void everyUnknownFieldIsNamedWithTheOtherProblems() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("cancelInflight", true);
    body.put("cancelInFlight", "no");
    assertEquals("pause: unknown field \"cancelInflight\" (the body may only hold \"cancelInFlight\"); "
        + "\"cancelInFlight\" must be true or false, got \"no\"", message("pause", body));
  }

  private static String message(String signal, Object body) {
    return assertThrows(IllegalArgumentException.class, () -> StopRequest.fromJson(signal, body)).getMessage();
  }
}
