package io.mongocdc.workflows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorStatus;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Sends the Temporal CLI commands of {@code docs/operations.md}, exactly as written there and in
 * that order, through a raw (untyped) client: the JSON an operator types is what the workflow
 * understands.
 */
class OperatorPayloadsTest {

  private static final Path OPERATIONS = Path.of("..", "docs", "operations.md");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ScriptedPullRecords pulls = new ScriptedPullRecords();
  @RegisterExtension
  final WorkflowTestExtension servers = WorkflowTestExtension.serversOnly();
  private final WorkerEnvironment flow = servers.start(WorkerEnvironment.builder().interceptors(pulls.interceptor()))
      .startWorker(Fixtures.peers(), Fixtures.inMemoryPorts(ScriptedChangeStream.of(List.of())));

  /** One {@code temporal workflow ...} line: the subcommand and its options. */
  record CliCommand(String subcommand, Map<String, String> options) {
    String option(String name) {
      return options.get(name);
    }
  }

  @Test
  void theDocumentedPayloadsDoWhatTheDocumentationSays() throws Exception {
    List<CliCommand> commands = documentedCommands();
    List<String> kinds = commands.stream().map(c -> c.subcommand() + " " + c.options().getOrDefault("--name",
        c.options().getOrDefault("--type", ""))).toList();
    assertEquals(List.of("start CdcFlow", "query status", "signal pause", "signal pause", "signal resume",
        "update execute edit", "signal edit", "signal edit", "update execute edit", "signal terminate", "terminate "),
        kinds,
        "the commands documented, in order");

    WorkflowStub stub = null;
    JsonNode editResult = null;
    for (CliCommand command : commands) {
      assertEquals("mirror-orders", command.option("--workflow-id"));
      String input = command.option("--input");
      JsonNode body = input == null ? null : JSON.readTree(input);
      switch (command.subcommand()) {
        case "start" -> {
          stub = flow.client.newUntypedWorkflowStub(command.option("--type"), WorkflowOptions.newBuilder()
              .setWorkflowId(command.option("--workflow-id")).setTaskQueue(command.option("--task-queue")).build());
          stub.start(body);
          assertEquals(1, pulls.nextCall().batchId(), "the mirror was set up and pulls its first batch");
          // Its (empty) collection's copy runs beside batch 1: done before the pauses, so the
          // cancelling one meets only the batch (the test server loses a cancellation that races
          // a short activity's completion).
          WorkerEnvironment.awaitStatus(typed(), s -> s.state() == MirrorPhase.RUNNING);
        }
        case "query" -> {
          JsonNode status = stub.query(command.option("--type"), JsonNode.class);
          assertEquals("orders", status.get("mirror").asText());
          assertEquals("orders-mongo", status.get("config").get("sourcePeer").asText());
        }
        case "signal" -> {
          if (body == null) {
            stub.signal(command.option("--name"));
          } else {
            stub.signal(command.option("--name"), body);
          }
          if (body != null && body.has("cancelInFlight") && command.option("--name").equals("pause")) {
            WorkerEnvironment.awaitStatus(typed(), s -> s.state() == MirrorPhase.PAUSED);
          }
          if (command.option("--name").equals("resume")) {
            assertEquals(1, pulls.nextCall().batchId(), "resumed: the cancelled batch is pulled again");
          }
        }
        case "update execute" -> {
          JsonNode result = stub.update(command.option("--name"), JsonNode.class, body);
          if (body.has("resyncCollections")) {
            assertTrue(typed().status().pendingEdits().stream()
                .anyMatch(edit -> List.of("orders").equals(edit.resyncCollections())),
                "the collection to copy again is pending with the other edits");
          } else {
            editResult = result;
          }
        }
        case "terminate" -> {
          // The terminate signal before it has completed the workflow; the command's form is checked above.
        }
        default -> throw new AssertionError("undocumented subcommand " + command.subcommand());
      }
      if (command.subcommand().equals("signal") && command.option("--name").equals("edit")
          && command.option("--input").contains("decodeWorkers")) {
        MirrorStatus status = WorkerEnvironment.awaitStatus(typed(), s -> s.recentRejectedEdits().size() == 1);
        assertEquals(2, status.pendingEdits().size(), "the update's and the valid signal's edits are pending");
        assertTrue(status.recentRejectedEdits().get(0).reason().contains("decodeWorkers must be between 1 and 256, got 0"));
      }
    }

    assertEquals(5000, editResult.get("nextBatchSettings").get("batchSize").asInt());
    assertEquals(2, editResult.get("appliesFromBatch").asInt());
    MirrorStatus last = flow.result("orders");
    assertEquals(MirrorPhase.TERMINATED, last.state());
    assertEquals(0, last.committedBatchId(), "the batch in flight was cancelled, not committed");
  }

  private io.mongocdc.workflows.CdcFlowWorkflow typed() {
    return flow.client.newWorkflowStub(CdcFlowWorkflow.class, "mirror-orders");
  }

  private static List<CliCommand> documentedCommands() throws Exception {
    List<CliCommand> commands = new ArrayList<>();
    for (String line : Files.readAllLines(OPERATIONS, StandardCharsets.UTF_8)) {
      if (!line.startsWith("temporal workflow ")) {
        continue;
      }
      List<String> words = words(line.substring("temporal workflow ".length()));
      int firstOption = 0;
      while (firstOption < words.size() && !words.get(firstOption).startsWith("--")) {
        firstOption++;
      }
      Map<String, String> options = new HashMap<>();
      for (int i = firstOption; i < words.size(); i += 2) {
        options.put(words.get(i), words.get(i + 1));
      }
      commands.add(new CliCommand(String.join(" ", words.subList(0, firstOption)), options));
    }
    return commands;
  }

  /** Splits a shell line into words, honouring single and double quotes. */
  private static List<String> words(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    char quote = 0;
    boolean inWord = false;
    for (char c : line.toCharArray()) {
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        inWord = true;
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        word.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(word.toString());
    }
    return words;
  }
}
