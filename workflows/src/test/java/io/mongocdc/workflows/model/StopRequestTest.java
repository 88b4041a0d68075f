package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
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
  void aFlagIsReadAsLenientlyAsTheSdkAlwaysReadIt() {
    // Signals in running mirrors' histories were bound this way; they must replay the same.
    assertEquals(new StopRequest(true), StopRequest.fromJson("pause", Map.of("cancelInFlight", 1)));
    assertEquals(new StopRequest(true), StopRequest.fromJson("pause", Map.of("cancelInFlight", "true")));
    assertEquals(new StopRequest(false), StopRequest.fromJson("pause", Map.of("cancelInFlight", 0)));
  }

  @Test
  void aFlagThatIsNotABooleanIsRejectedNamingTheSignal() {
    assertEquals("pause: cancelInFlight must be true or false, got \"yes\"", message("pause", Map.of("cancelInFlight", "yes")));
    assertEquals("terminate: cancelInFlight must be true or false, got [true]",
        message("terminate", Map.of("cancelInFlight", List.of(true))));
  }

  @Test
  void aBodyThatIsNotAnObjectIsRejected() {
    for (Object body : List.of("yes", true, 1, List.of(), List.of(Map.of("cancelInFlight", true)))) {
      assertEquals("pause: the body must be a JSON object such as {\"cancelInFlight\": true}, or nothing, got "
          + JsonText.of(body), message("pause", body));
    }
  }

  @Test
  void anUnknownFieldIsNamedWithTheOneTheBodyTakes() {
    assertEquals("pause: the body has an unknown field \"cancelInflight\" (known fields: cancelInFlight)",
        message("pause", Map.of("cancelInflight", true)));
  }

  private static String message(String signal, Object body) {
    return assertThrows(IllegalArgumentException.class, () -> StopRequest.fromJson(signal, body)).getMessage();
  }
}
