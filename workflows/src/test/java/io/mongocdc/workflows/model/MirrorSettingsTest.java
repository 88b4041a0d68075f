package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MirrorSettingsTest {

  @Test
  void theDefaultsAreValid() {
    assertEquals(List.of(), MirrorSettings.defaults().problems());
  }

  @Test
  void valuesOutOfRangeAreNamedWithTheirLimits() {
    MirrorSettings bad = new MirrorSettings(0, 0, 3601, 257, 0, List.of("upsert"), "SKIP", 0, false, null, "RETRY");
    List<String> problems = bad.problems();
    assertEquals(9, problems.size(), problems.toString());
    assertTrue(problems.contains("batchSize must be between 1 and 10000000, got 0"));
    assertTrue(problems.contains("maxBatchDurationSeconds must be between 1 and 3600, got 3601"));
    assertTrue(problems.contains("excludedOperations: 'upsert' is not one of insert, update, replace, delete"));
    assertTrue(problems.contains("controlEventPolicy must be PAUSE or IGNORE, got 'SKIP'"));
    assertTrue(problems.contains("poisonEventPolicy must be FAIL or QUARANTINE, got 'RETRY'"));
  }

  @Test
  void poisonEventPolicyDefaultsToFailWhenAbsentFromJson() {
    MirrorSettings settings = new MirrorSettings(1, 1, 1, 1, 1, null, "PAUSE", 1, false, null, null);
    assertEquals("FAIL", settings.poisonEventPolicy());
    assertEquals("QUARANTINE", settings.apply(EditRequest.fromJson(java.util.Map.of("poisonEventPolicy", "QUARANTINE")))
        .poisonEventPolicy());
  }

  @Test
  void theVerifyRateIsASettingWithADefaultAndLimitsThatAnEditChanges() {
    MirrorSettings absentFromJson = new MirrorSettings(1, 1, 1, 1, 1, null, "PAUSE", 1, false, null, null);
    assertEquals(MirrorSettings.DEFAULT_VERIFY_DOCUMENTS_PER_SECOND, absentFromJson.verifyDocumentsPerSecond());

    MirrorSettings edited = absentFromJson.apply(EditRequest.fromJson(Map.of("verifyDocumentsPerSecond", 500)));
    assertEquals(500, edited.verifyDocumentsPerSecond());
    assertEquals(500, edited.apply(EditRequest.fromJson(Map.of("batchSize", 7))).verifyDocumentsPerSecond(),
        "an edit of another field keeps the rate");

    assertEquals(List.of("verifyDocumentsPerSecond must be between 1 and 10000000, got 0"),
        MirrorSettings.defaults().apply(EditRequest.fromJson(Map.of("verifyDocumentsPerSecond", 0))).problems());
  }

  @Test
  void aVerifyReadsAtTheMirrorsRateUnlessTheRunSaysOtherwise() {
    MirrorSettings settings = MirrorSettings.defaults().apply(
        EditRequest.fromJson(Map.of("verifyDocumentsPerSecond", 800)));
    MirrorConfig mirror = new MirrorConfig("orders", "shop-mongo", "warehouse-pg", "shop", List.of(), "public",
        settings);
    assertEquals(800, new VerifyRequest(mirror, false, null, null).documentsPerSecond());
    assertEquals(200, new VerifyRequest(mirror, false, null, 4).documentsPerSecondPerRange());
    assertEquals(50, new VerifyRequest(mirror, false, 50, null).documentsPerSecond());
  }

  @Test
  void excludingEveryOperationIsRefused() {
    MirrorSettings settings = MirrorSettings.defaults().apply(
        new EditRequest(null, null, null, null, null, List.of("insert", "update", "replace", "delete"), null, null, null, null, null, null, null, null, null));
    assertEquals(List.of("excludedOperations: excluding every operation type would replicate nothing"), settings.problems());
  }

  @Test
  void anEditChangesOnlyTheFieldsItSets() {
    MirrorSettings edited = MirrorSettings.defaults().apply(new EditRequest(5000, null, null, null, 64, null, null, null, null, null, null, null, null, null, null));
    MirrorSettings d = MirrorSettings.defaults();
    assertEquals(new MirrorSettings(5000, d.idleTimeoutSeconds(), d.maxBatchDurationSeconds(), d.decodeWorkers(), 64,
        d.excludedOperations(), d.controlEventPolicy(), d.continueAsNewEveryBatches(), d.splitLargeEvents(), d.snapshot(),
        d.poisonEventPolicy()),
        edited);
  }

  @Test
  void aMirrorRefusesAConnectionStringAsAPeerName() {
    MirrorConfig config = new MirrorConfig("orders", "mongodb://cdc:secret@db1", "warehouse-pg", "shop", List.of(),
        "public", MirrorSettings.defaults());
    InvalidMirrorException e = assertThrows(InvalidMirrorException.class, config::requireValid);
    assertTrue(e.getMessage().contains("sourcePeer must be a peer name"), e.getMessage());
    assertTrue(!e.getMessage().contains("secret"), "the value is not echoed: " + e.getMessage());
  }

  @Test
  void aMirrorNameMustFitAWorkflowIdAndATableName() {
    MirrorConfig config = new MirrorConfig("Orders!", "a", "b", "shop", List.of(), "Public", MirrorSettings.defaults());
    List<String> problems = config.problems();
    assertEquals(2, problems.size(), problems.toString());
    assertEquals("mirror-orders", MirrorIds.workflowId("orders"));
  }
}
