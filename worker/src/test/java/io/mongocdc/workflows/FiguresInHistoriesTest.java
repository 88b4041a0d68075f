package io.mongocdc.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.MirrorTotals;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Every batch's figures and every mirror's totals in the recorded workflow histories (activity
 * results, activity inputs, workflow and continue-as-new inputs, query answers), whichever worker
 * wrote them, read as this code's {@link BatchFigures} and {@link MirrorTotals} with the data
 * converter's JSON and are written back as they were.
 */
class FiguresInHistoriesTest {

  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();
  private static final String JSON_PLAIN = Base64.getEncoder().encodeToString("json/plain"
      .getBytes(StandardCharsets.UTF_8));

  @Test
  void figuresAndTotalsOfEveryRecordedHistoryReadAndWriteBackAsTheyWere() throws IOException {
    List<JsonNode> figures = new ArrayList<>();
    List<JsonNode> totals = new ArrayList<>();
    List<JsonNode> outcomes = new ArrayList<>();
    for (Path history : CdcFlowReplayTest.histories()) {
      payloads(JSON.readTree(history.toFile()), payload -> find(payload, figures, totals, outcomes));
    }
    Set<Integer> figureShapes = new HashSet<>();
    for (JsonNode written : figures) {
      BatchFigures read = JSON.treeToValue(written, BatchFigures.class);
      assertEquals(written, asWritten(read), "figures as written: " + written);
      assertEquals(written.path("recordsDelivered").asLong(), read.get(BatchFigures.RECORDS_DELIVERED));
      figureShapes.add(written.size());
    }
    Set<Integer> totalShapes = new HashSet<>();
    for (JsonNode written : totals) {
      MirrorTotals read = JSON.treeToValue(written, MirrorTotals.class);
      assertEquals(written, asWritten(read), "totals as written: " + written);
      totalShapes.add(written.size());
    }
    for (JsonNode written : outcomes) {
      BatchOutcome read = JSON.treeToValue(written, BatchOutcome.class);
      assertEquals(written.get("figures"), asWritten(read).get("figures"), "a PullRecords result: " + written);
    }
    // Not vacuous: the histories hold figures and totals of workers from before several figures existed.
    assertTrue(figureShapes.size() >= 4 && totalShapes.size() >= 3, figureShapes + " " + totalShapes);
    assertTrue(outcomes.size() >= 10, "PullRecords results: " + outcomes.size());
  }

  /** The value as JSON, read back as text is (so numbers compare by value, whatever their Java type). */
  private static JsonNode asWritten(Object value) throws IOException {
    return JSON.readTree(JSON.writeValueAsString(value));
  }

  /** Each JSON payload of the history, decoded. */
  private static void payloads(JsonNode node, Consumer<JsonNode> each) throws IOException {
    if (node.isObject() && node.path("metadata").path("encoding").asText().equals(JSON_PLAIN)
        && node.has("data")) {
      each.accept(JSON.readTree(Base64.getDecoder().decode(node.get("data").asText())));
      return;
    }
    for (JsonNode child : (Iterable<JsonNode>) () -> node.elements()) {
      payloads(child, each);
    }
  }

  private static void find(JsonNode node, List<JsonNode> figures, List<JsonNode> totals, List<JsonNode> outcomes) {
    if (node.isObject()) {
      JsonNode f = node.get("figures");
      if (f != null && f.isObject() && f.has("recordsDelivered")) {
        figures.add(f);
        if (node.has("checkpoint") && node.has("stoppedAt")) {
          outcomes.add(node);
        }
      }
      JsonNode t = node.get("totals");
      if (t != null && t.isObject() && t.has("batches")) {
        totals.add(t);
      }
    }
    node.elements().forEachRemaining(child -> find(child, figures, totals, outcomes));
  }
}
