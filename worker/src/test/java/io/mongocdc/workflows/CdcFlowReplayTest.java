package io.mongocdc.workflows;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays histories captured from the workflow tests (see {@link Histories}) against the current
 * workflow code: a change that would break running mirrors (a non-deterministic change) fails
 * here instead of in production.
 */
class CdcFlowReplayTest {

  private static TestWorkflowEnvironment environment;
  private static Worker replayer;

  /**
   * The replay runs the workflow code on this JVM's threads, and the SDK reports a workflow thread
   * that does not yield within its deadlock detection timeout (1 s by default) as a deadlock: on a
   * machine busy with other test JVMs, loading a class can take that long. Replays are of finished
   * histories, so a generous timeout hides nothing.
   */
  @BeforeAll
  static void replayer() {
    environment = TestWorkflowEnvironment.newInstance();
    replayer = environment.newWorker("replay", WorkerOptions.newBuilder()
        .setDefaultDeadlockDetectionTimeout(Duration.ofSeconds(60).toMillis()).build());
    replayer.registerWorkflowImplementationTypes(CdcFlowWorkflowImpl.class);
  }

  @AfterAll
  static void close() {
    environment.close();
  }

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
    WorkflowReplayer.replayWorkflowExecution(
        WorkflowExecutionHistory.fromJson(Files.readString(history, StandardCharsets.UTF_8)), replayer);
  }
}
