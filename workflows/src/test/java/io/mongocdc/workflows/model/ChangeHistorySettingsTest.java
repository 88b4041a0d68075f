package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChangeHistorySettingsTest {

  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  @Test
  void settingsWrittenBeforeChangeHistoryReadAsNoHistory() throws Exception {
    String old = JSON.writeValueAsString(MirrorSettings.defaults()).replaceFirst(",\"history\":\\{[^}]*}", "");
    assertFalse(old.contains("history"), old);

    MirrorSettings settings = JSON.readValue(old, MirrorSettings.class);

    assertEquals(ChangeHistorySettings.defaults(), settings.history());
    assertEquals("off", settings.history().fullDocumentBeforeChange());
    assertEquals(List.of(), settings.history().collections());
    assertEquals(0, settings.history().retentionDays());
  }

  @Test
  void settingsWithHistoryRoundTripThroughJson() throws Exception {
    MirrorSettings settings = MirrorSettings.defaults()
        .withHistory(new ChangeHistorySettings("whenAvailable", List.of("orders", "items"), 30));

    MirrorSettings read = JSON.readValue(JSON.writeValueAsString(settings), MirrorSettings.class);

    assertEquals(settings, read);
    assertEquals(List.of("items", "orders"), read.history().collections(), "sorted");
  }

  @Test
  void anEditTurnsCollectionsOnAndOffAndKeepsTheRest() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("history", Map.of("orders", true, "items", true));
    body.put("fullDocumentBeforeChange", "required");
    MirrorSettings on = MirrorSettings.defaults().apply(EditRequest.fromJson(body));

    MirrorSettings edited = on.apply(EditRequest.fromJson(Map.of("history", Map.of("items", false),
        "historyRetentionDays", 7)));

    assertEquals(List.of("items", "orders"), on.history().collections());
    assertEquals(new ChangeHistorySettings("required", List.of("orders"), 7), edited.history());
    assertTrue(edited.history().keepsHistory("orders"));
    assertFalse(edited.history().keepsHistory("items"));
  }

  @Test
  void badValuesAreNamed() {
    ChangeHistorySettings bad = new ChangeHistorySettings("always", List.of("orders"), -1);

    assertEquals(List.of("fullDocumentBeforeChange must be off, whenAvailable or required, got 'always'",
        "historyRetentionDays must be between 0 and 36500, got -1"), bad.problems());
    InvalidEditException typed = assertThrows(InvalidEditException.class,
        () -> EditRequest.fromJson(Map.of("history", Map.of("orders", "yes"))));
    assertTrue(typed.getMessage().contains("history.orders must be true or false, got \"yes\""), typed.getMessage());
  }

  @Test
  void aHistoryForACollectionTheMirrorDoesNotReplicateIsRefused() {
    MirrorConfig config = new MirrorConfig("shop", "src", "dst", "shop", List.of("orders"), "public",
        MirrorSettings.defaults().withHistory(new ChangeHistorySettings(null, List.of("ordres"), null)));

    assertEquals(List.of("settings.history: 'ordres' is not one of the mirror's collections [orders]"),
        config.problems());
  }
}
