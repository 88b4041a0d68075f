package io.mongocdc.workflows;

import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Captures workflow histories from the tests as replay resources. Run the tests with
 * {@code -Dmongocdc.captureHistories=true} after a deliberate change of the workflow's commands
 * (and version it with {@code Workflow.getVersion}), then commit the files.
 */
public final class Histories {

  static final Path DIRECTORY = Path.of("src", "test", "resources", "histories");

  private Histories() {}

  public static void capture(WorkflowClient client, String workflowId, String runId, String name) {
    if (!Boolean.getBoolean("mongocdc.captureHistories")) {
      return;
    }
    WorkflowExecutionHistory history = client.fetchHistory(workflowId, runId);
    try {
      Files.createDirectories(DIRECTORY);
      Files.writeString(DIRECTORY.resolve(name + ".json"), history.toJson(true), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write history " + name, e);
    }
  }
}
