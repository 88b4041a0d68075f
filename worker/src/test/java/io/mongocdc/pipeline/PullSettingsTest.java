package io.mongocdc.pipeline;

import io.mongocdc.workflows.model.ControlEventPolicy;
import io.mongocdc.workflows.model.MirrorSettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Invariant 7: settings that cannot work are rejected when given, with a message that says why. */
class PullSettingsTest {

  static Stream<Arguments> settingsThatCannotWork() {
    return Stream.of(
        bad("decodeWorkers must be at least 1, got 0", b -> b.decodeWorkers(0)),
        bad("chunkSize must be at least 1, got 0", b -> b.chunkSize(0)),
        bad("chunkSize must be at least 1, got -5", b -> b.chunkSize(-5)),
        bad("maxInFlightChunks must be at least 1, got 0", b -> b.maxInFlightChunks(0)),
        bad("maxChunkBytes must be at least 1, got 0", b -> b.maxChunkBytes(0)),
        bad("maxBatchSize must be at least 1, got 0", b -> b.maxBatchSize(0)),
        bad("idleTimeout must be a positive duration, got PT0S", b -> b.idleTimeout(Duration.ZERO)),
        bad("maxBatchDuration must be a positive duration, got PT-1S", b -> b.maxBatchDuration(Duration.ofSeconds(-1))),
        bad("progressInterval must be a positive duration, got null", b -> b.progressInterval(null)),
        bad("commitIntervalRecords must be at least 0, got -1", b -> b.commitIntervalRecords(-1)),
        bad("shutdownTimeout must be a positive duration, got PT0S", b -> b.shutdownTimeout(Duration.ZERO)),
        bad("maxStreamReopens must be at least 0, got -1", b -> b.maxStreamReopens(-1)));
  }

  private static Arguments bad(String message, UnaryOperator<PullSettings.Builder> change) {
    return Arguments.of(message, change);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("settingsThatCannotWork")
  void rejectedWithAClearMessage(String message, UnaryOperator<PullSettings.Builder> change) {
    IllegalArgumentException error =
        assertThrows(IllegalArgumentException.class, () -> change.apply(PullSettings.builder()).build());
    assertEquals(message, error.getMessage());
  }

  @Test
  void theMirrorsSettingsDefaultAsAMirrorDoes() {
    PullSettings defaults = PullSettings.defaults();
    MirrorSettings mirror = MirrorSettings.defaults();
    assertEquals(mirror.decodeWorkers(), defaults.decodeWorkers());
    assertEquals(2 * mirror.decodeWorkers(), defaults.maxInFlightChunks());
    assertEquals(mirror.chunkSize(), defaults.chunkSize());
    assertEquals(mirror.batchSize(), defaults.maxBatchSize());
    assertEquals(ControlEventPolicy.PAUSE, defaults.controlEventPolicy());
  }

  @Test
  void theInFlightBoundIsNeverBelowTheWorkerCount() {
    PullSettings settings = PullSettings.builder().decodeWorkers(8).maxInFlightChunks(2).build();
    assertEquals(8, settings.effectiveMaxInFlightChunks());
    assertEquals(12, settings.toBuilder().maxInFlightChunks(12).build().effectiveMaxInFlightChunks());
  }
}
