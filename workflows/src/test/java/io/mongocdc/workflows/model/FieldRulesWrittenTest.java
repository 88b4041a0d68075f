package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a mirror created again over the rows it wrote does with them (issue 47, finding 7). */
class FieldRulesWrittenTest {

  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();
  private static final Checkpoint STORED = Checkpoint.afterToken("8265A0C0FF000000012B0429", 1_700_000_000L, 1);

  private static FieldRuleSettings rules(String collection, List<String> exclude, List<String> hash) {
    return new FieldRuleSettings(Map.of(collection, new FieldRules(exclude, hash)));
  }

  @Test
  void addedRulesRewriteTheRowsPastTheStoredCheckpointThenThoseUpToIt() {
    FieldRulesWritten written = new FieldRulesWritten(rules("orders", List.of("note"), List.of()), List.of(), Map.of());
    FieldRuleSettings next = rules("orders", List.of("note"), List.of("email"));

    assertEquals(List.of(), written.recreationProblems(next));
    assertEquals(List.of(FieldRuleRewrite.pastCheckpoint(rules("orders", List.of(), List.of("email")), STORED),
        FieldRuleRewrite.of(rules("orders", List.of(), List.of("email")), STORED)),
        written.rewritesFor(next, STORED), "only the added rule, so nothing is hashed twice");
    assertEquals(List.of(), written.rewritesFor(written.rules(), STORED), "the same rules: nothing to rewrite");
  }

  @Test
  void withoutAStoredCheckpointOneRewriteTakesEveryRowBeforeTheNewStart() {
    FieldRulesWritten written = new FieldRulesWritten(FieldRuleSettings.defaults(), List.of(), Map.of());
    Checkpoint start = Checkpoint.atOperationTime(1_800_000_000L, 0);

    assertEquals(List.of(FieldRuleRewrite.of(rules("orders", List.of(), List.of("email")), start)),
        written.rewritesBefore(rules("orders", List.of(), List.of("email")), start));
    assertEquals(List.of(), written.rewritesBefore(FieldRuleSettings.defaults(), start));
  }

  @Test
  void aPathHashedBeforeAndNotNowIsRefused() {
    FieldRulesWritten written = new FieldRulesWritten(FieldRuleSettings.defaults(), List.of(),
        Map.of("orders", List.of("email")));

    List<String> problems = written.recreationProblems(rules("orders", List.of(), List.of("email")));

    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("'email' was hashed before"), problems.get(0));
    assertEquals(List.of(), written.recreationProblems(rules("orders", List.of("email"), List.of())),
        "excluding it takes the hashes away, which is fine");
  }

  @Test
  void anUnfinishedRewriteIsCarriedAsItWasUnderTheSameRulesAndRefusedUnderOthers() {
    FieldRuleSettings hashed = rules("orders", List.of(), List.of("email"));
    FieldRuleRewrite underWay = FieldRuleRewrite.of(hashed, STORED).at("orders", FieldRuleRewrite.HISTORY, "p", "k", 7);
    FieldRulesWritten written = new FieldRulesWritten(hashed, List.of(underWay), Map.of("orders", List.of("email")));

    assertEquals(List.of(), written.recreationProblems(hashed));
    assertEquals(List.of(underWay), written.rewritesFor(hashed, Checkpoint.atOperationTime(1_800_000_000L, 0)),
        "its own bounds and place, not the new checkpoint's");
    List<String> problems = written.recreationProblems(rules("orders", List.of("note"), List.of("email")));
    assertTrue(problems.get(0).contains("are being rewritten"), problems.toString());
  }

  @Test
  void progressMovesARewriteOnAndDropsItDone() {
    FieldRuleSettings hashed = rules("orders", List.of(), List.of("email"));
    FieldRuleRewrite past = FieldRuleRewrite.pastCheckpoint(hashed, STORED);
    FieldRuleRewrite upTo = FieldRuleRewrite.of(hashed, STORED);
    FieldRulesWritten written = new FieldRulesWritten(hashed, List.of(past, upTo), Map.of());

    FieldRuleRewrite moved = past.at("orders", FieldRuleRewrite.TABLE, null, "k", 3);
    assertEquals(List.of(moved, upTo), written.withProgress(moved).rewrites());
    assertEquals(List.of(upTo), written.withProgress(past.finished(3)).rewrites());
  }

  @Test
  void roundTripsThroughJson() throws Exception {
    FieldRuleSettings hashed = rules("orders", List.of("note"), List.of("email"));
    FieldRulesWritten written = new FieldRulesWritten(hashed, List.of(FieldRuleRewrite.of(hashed, STORED)),
        Map.of("orders", List.of("email")));

    assertEquals(written, JSON.readValue(JSON.writeValueAsString(written), FieldRulesWritten.class));
    assertEquals(written, new ObjectMapper().readValue(new ObjectMapper().writeValueAsString(written),
        FieldRulesWritten.class), "as the catalog writes and reads it");
  }
}
