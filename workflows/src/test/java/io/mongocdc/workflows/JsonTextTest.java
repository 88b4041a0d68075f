package io.mongocdc.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTextTest {

  @Test
  void rendersAnEditAsItWasSent() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("batchSize", 5000);
    body.put("excludedOperations", List.of("delete"));
    body.put("controlEventPolicy", "say \"hi\"\n");
    body.put("flag", true);
    assertEquals("{\"batchSize\":5000,\"excludedOperations\":[\"delete\"],\"controlEventPolicy\":\"say \\\"hi\\\"\\n\",\"flag\":true}",
        JsonText.of(body));
  }

  @Test
  void theWorkflowBacksOffDoublingUpToTenMinutes() {
    assertEquals(30, CdcActivityOptions.workflowBackoff(1).getSeconds());
    assertEquals(60, CdcActivityOptions.workflowBackoff(2).getSeconds());
    assertEquals(600, CdcActivityOptions.workflowBackoff(6).getSeconds());
    assertEquals(600, CdcActivityOptions.workflowBackoff(100).getSeconds());
  }
}
