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
    MirrorSettings bad = MirrorSettings.defaults().toBuilder().batchSize(0).idleTimeoutSeconds(0)
        .maxBatchDurationSeconds(3601).decodeWorkers(257).chunkSize(0).excludedOperations(List.of("up-sert"))
        .controlEventPolicy(null).continueAsNewEveryBatches(0).build();
    List<String> problems = bad.problems();
    assertEquals(8, problems.size(), problems.toString());
    assertTrue(problems.contains("batchSize must be between 1 and 10000000, got 0"));
    assertTrue(problems.contains("maxBatchDurationSeconds must be between 1 and 3600, got 3601"));
    assertTrue(problems.contains("excludedOperations: 'up-sert' is not an operation type (letters and digits, such as"
        + " insert or createIndexes)"), problems.toString());
    assertTrue(problems.contains("controlEventPolicy must be PAUSE or IGNORE, got nothing"));
    // The policies are enums: a value that names none is refused where the JSON is read.
    List<String> policies = assertThrows(InvalidEditException.class, () -> EditRequest.fromJson(
        Map.of("controlEventPolicy", "SKIP", "poisonEventPolicy", "RETRY", "unknownEventPolicy", "IGNORE"))).problems();
    assertTrue(policies.contains("controlEventPolicy must be PAUSE or IGNORE, got 'SKIP'"), policies.toString());
    assertTrue(policies.contains("poisonEventPolicy must be FAIL or QUARANTINE, got 'RETRY'"), policies.toString());
    assertTrue(policies.contains("unknownEventPolicy must be FAIL or SKIP, got 'IGNORE'"), policies.toString());
  }

  @Test
  void poisonEventPolicyDefaultsToFailWhenAbsentFromJson() {
    MirrorSettings settings = MirrorSettings.builder().batchSize(1).idleTimeoutSeconds(1)
        .maxBatchDurationSeconds(1).decodeWorkers(1).chunkSize(1).controlEventPolicy(ControlEventPolicy.PAUSE)
        .continueAsNewEveryBatches(1).build();
    assertEquals(PoisonEventPolicy.FAIL, settings.poisonEventPolicy());
    assertEquals(PoisonEventPolicy.QUARANTINE, settings.apply(EditRequest.fromJson(java.util.Map.of("poisonEventPolicy", "QUARANTINE")))
        .poisonEventPolicy());
  }

  @Test
  void theVerifyRateIsASettingWithADefaultAndLimitsThatAnEditChanges() {
    MirrorSettings absentFromJson = MirrorSettings.builder().batchSize(1).idleTimeoutSeconds(1)
        .maxBatchDurationSeconds(1).decodeWorkers(1).chunkSize(1).controlEventPolicy(ControlEventPolicy.PAUSE)
        .continueAsNewEveryBatches(1).build();
    assertEquals(MirrorSettings.VERIFY_DOCUMENTS_PER_SECOND.defaultValue(), absentFromJson.verifyDocumentsPerSecond());

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
        EditRequest.none().with(MirrorSettings.EXCLUDED_OPERATIONS, List.of("insert", "update", "replace", "delete")));
    assertEquals(List.of("excludedOperations: excluding every data operation type (insert, update, replace, delete)"
        + " would replicate nothing"), settings.problems());
  }

  @Test
  void anyOperationTypeMayBeExcludedButControlEventsKeepTheirPolicy() {
    MirrorSettings unknownTypes = MirrorSettings.defaults().with(MirrorSettings.EXCLUDED_OPERATIONS,
        List.of("createIndexes", "futureOp", "delete"));
    assertEquals(List.of(), unknownTypes.problems());

    MirrorSettings control = MirrorSettings.defaults().with(MirrorSettings.EXCLUDED_OPERATIONS,
        List.of("drop", "invalidate"));
    assertEquals(List.of(
        "excludedOperations: 'drop' is a control event, which controlEventPolicy governs; it cannot be excluded",
        "excludedOperations: 'invalidate' is a control event, which controlEventPolicy governs; it cannot be excluded"),
        control.problems());
  }

  @Test
  void unknownEventsFailByDefaultAndAnEditSkipsThem() {
    assertEquals(UnknownEventPolicy.FAIL, MirrorSettings.defaults().unknownEventPolicy());
    assertEquals(UnknownEventPolicy.SKIP, MirrorSettings.defaults().apply(
        EditRequest.fromJson(Map.of("unknownEventPolicy", "SKIP"))).unknownEventPolicy());
    // Settings written before the setting existed read as the default.
    assertEquals(UnknownEventPolicy.FAIL, MirrorSettings.builder().build().unknownEventPolicy());
  }

  @Test
  void anEditChangesOnlyTheFieldsItSets() {
    MirrorSettings edited = MirrorSettings.defaults().apply(
        EditRequest.none().with(MirrorSettings.BATCH_SIZE, 5000).with(MirrorSettings.CHUNK_SIZE, 64));
    MirrorSettings d = MirrorSettings.defaults();
    assertEquals(d.toBuilder().batchSize(5000).chunkSize(64).build(), edited);
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
