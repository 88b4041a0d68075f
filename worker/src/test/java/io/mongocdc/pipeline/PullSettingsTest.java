package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.mongocdc.workflows.model.MirrorSettings;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Invariant 7: settings that cannot work are rejected when given, with a message that says why:
 * the worker's knobs when they are built, the mirror's settings a pull reads when a pull is made.
 */
class PullSettingsTest {

  static Stream<Arguments> knobsThatCannotWork() {
    return Stream.of(
        bad("maxInFlightChunks must be at least 1, got 0", b -> b.maxInFlightChunks(0)),
        bad("maxChunkBytes must be at least 1, got 0", b -> b.maxChunkBytes(0)),
        bad("progressInterval must be a positive duration, got null", b -> b.progressInterval(null)),
        bad("commitIntervalRecords must be at least 0, got -1", b -> b.commitIntervalRecords(-1)),
        bad("commitIntervalBytes must be at least 0, got -1", b -> b.commitIntervalBytes(-1)),
        bad("shutdownTimeout must be a positive duration, got PT0S", b -> b.shutdownTimeout(Duration.ZERO)),
        bad("maxStreamReopens must be at least 0, got -1", b -> b.maxStreamReopens(-1)));
  }

  private static Arguments bad(String message, UnaryOperator<PullSettings.Builder> change) {
    return Arguments.of(message, change);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("knobsThatCannotWork")
  void knobsAreRejectedWithAClearMessage(String message, UnaryOperator<PullSettings.Builder> change) {
    IllegalArgumentException error =
        assertThrows(IllegalArgumentException.class, () -> change.apply(PullSettings.builder()).build());
    assertEquals(message, error.getMessage());
  }

  static Stream<Arguments> mirrorSettingsThatCannotWork() {
    return Stream.of(
        badMirror("decodeWorkers must be between 1 and 256, got 0", b -> b.decodeWorkers(0)),
        badMirror("chunkSize must be between 1 and 100000, got 0", b -> b.chunkSize(0)),
        badMirror("chunkSize must be between 1 and 100000, got -5", b -> b.chunkSize(-5)),
        badMirror("batchSize must be between 1 and 10000000, got 0", b -> b.batchSize(0)),
        badMirror("idleTimeoutSeconds must be between 1 and 3600, got 0", b -> b.idleTimeoutSeconds(0)),
        badMirror("maxBatchDurationSeconds must be between 1 and 3600, got -1", b -> b.maxBatchDurationSeconds(-1)),
        badMirror("maxVisibilityDelay must be between 1 and 3600000, got 0", b -> b.maxVisibilityDelay(0)),
        badMirror("controlEventPolicy must be PAUSE or IGNORE, got nothing", b -> b.controlEventPolicy(null)),
        badMirror("decodeWorkers must be between 1 and 256, got 0; chunkSize must be between 1 and 100000, got 0",
            b -> b.decodeWorkers(0).chunkSize(0)));
  }

  private static Arguments badMirror(String message, UnaryOperator<MirrorSettings.Builder> change) {
    return Arguments.of(message, change);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("mirrorSettingsThatCannotWork")
  void aPullRefusesMirrorSettingsThatCannotWork(String message, UnaryOperator<MirrorSettings.Builder> change) {
    PullFixture fixture = new PullFixture(List.of());
    fixture.mirror = change.apply(MirrorSettings.defaults().toBuilder());
    IllegalArgumentException error = assertThrows(IllegalArgumentException.class, fixture::pullRecords);
    assertEquals(message, error.getMessage());
  }

  @Test
  void theInFlightBoundIsTwiceTheWorkersUnlessSetAndNeverBelowThem() {
    assertNull(PullSettings.defaults().maxInFlightChunks());
    assertEquals(8, PullRun.inFlightBound(PullSettings.defaults(), 4));
    PullSettings settings = PullSettings.builder().maxInFlightChunks(2).build();
    assertEquals(8, PullRun.inFlightBound(settings, 8));
    assertEquals(12, PullRun.inFlightBound(settings.toBuilder().maxInFlightChunks(12).build(), 8));
  }
}
