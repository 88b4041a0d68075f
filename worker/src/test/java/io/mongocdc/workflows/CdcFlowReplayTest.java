package io.mongocdc.workflows;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.temporal.testing.WorkflowReplayer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays histories captured from the workflow tests (see {@link Histories}) against the current
 * workflow code: a change that would break running mirrors (a non-deterministic change) fails
 * here instead of in production.
 */
class CdcFlowReplayTest {

  static List<Path> histories() throws IOException {
    try (Stream<Path> files = Files.list(Histories.DIRECTORY)) {
      List<Path> found = files.filter(f -> f.toString().endsWith(".json")).sorted().toList();
      assertFalse(found.isEmpty(), "no captured histories in " + Histories.DIRECTORY);
      return found;
    }
  }

  @ParameterizedTest
  @MethodSource("histories")
  void replaysWithoutNonDeterminism(Path history) throws Exception {
    WorkflowReplayer.replayWorkflowExecution(Files.readString(history, StandardCharsets.UTF_8), CdcFlowWorkflowImpl.class);
  }
}
