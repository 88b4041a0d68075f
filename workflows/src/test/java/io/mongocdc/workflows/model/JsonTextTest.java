package io.mongocdc.workflows.model;

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
}
