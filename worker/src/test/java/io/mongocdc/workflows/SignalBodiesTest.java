package io.mongocdc.workflows;

import static io.mongocdc.testing.WorkerEnvironment.awaitStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.testing.WorkflowTestExtension;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.EditResult;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.RejectedEdit;
import io.mongocdc.workflows.model.StopRequest;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Signal, update and start bodies of the wrong shape, sent raw as an operator's tool would: each
 * is answered with a reason in the operator's terms (in status for a signal, in the answer for the
 * update, as the workflow's failure for the start), never dropped by the SDK or answered with the
 * JSON library's text.
 *
 * <p>A signal cannot answer, so each test sends a valid edit after the bad bodies and waits for it
 * to be pending: signals are handled in the order sent, so the bad ones have been handled too.
 */
class SignalBodiesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, Object> MARKER_EDIT = Map.of("chunkSize", 64);

  private final ScriptedPullRecords pulls = new ScriptedPullRecords();
  @RegisterExtension
  final WorkflowTestExtension servers = WorkflowTestExtension.serversOnly();
  private final WorkerEnvironment flow = servers.start(WorkerEnvironment.builder().interceptors(pulls.interceptor()))
      .startWorker(Fixtures.peers(), Fixtures.inMemoryPorts(ScriptedChangeStream.of(List.of())));

  private CdcFlowWorkflow startRunning() throws InterruptedException {
    CdcFlowWorkflow workflow = flow.start(Fixtures.orders());
    pulls.nextCall();
    return workflow;
  }

  private WorkflowStub raw() {
    return flow.client.newUntypedWorkflowStub(MirrorIds.workflowId("orders"));
  }

  /** Sends the marker edit and waits until it is pending: every signal before it was handled. */
  private MirrorStatus handled(CdcFlowWorkflow workflow) {
    raw().signal("edit", MARKER_EDIT);
    return awaitStatus(workflow, s -> s.pendingEdits().size() == 1);
  }

  private static void assertRejected(RejectedEdit rejected, String request, String reason) {
    assertEquals(request, rejected.request());
    assertEquals(reason, rejected.reason());
  }

  @Test
  void aPauseWithABodyOfTheWrongShapeIsRejectedInStatusAndDoesNotPause() throws Exception {
    CdcFlowWorkflow workflow = startRunning();

    raw().signal("pause", Map.of("cancelInFlight", "yes"));
    raw().signal("pause", "yes");
    raw().signal("pause", Map.of("cancelInflight", true));
    MirrorStatus status = handled(workflow);

    List<RejectedEdit> rejected = status.recentRejectedEdits();
    assertEquals(3, rejected.size(), rejected::toString);
    assertRejected(rejected.get(0), "{\"cancelInFlight\":\"yes\"}", "pause: cancelInFlight must be true or false, got \"yes\"");
    assertRejected(rejected.get(1), "\"yes\"",
        "pause: the body must be a JSON object such as {\"cancelInFlight\": true}, or nothing, got \"yes\"");
    assertRejected(rejected.get(2), "{\"cancelInflight\":true}",
        "pause: the body has an unknown field \"cancelInflight\" (known fields: cancelInFlight)");
    assertEquals(MirrorPhase.RUNNING, status.state(), "a rejected pause is not acted on");
    assertNull(status.pausedReason());
    assertEquals(1, status.batchInFlight(), "nor does it cancel the batch in flight");

    workflow.terminate(new StopRequest(true));
    flow.result("orders");
    flow.captureHistory("orders", flow.firstRunId, "bad-signal-bodies-rejected");
  }

  @Test
  void aPauseWithAnEmptyObjectOrNoBodyStillPausesAtTheBatchBoundary() throws Exception {
    CdcFlowWorkflow workflow = startRunning();

    raw().signal("pause", Map.of());
    MirrorStatus paused = awaitStatus(workflow, s -> "paused by the operator".equals(s.pausedReason()));
    assertEquals(List.of(), paused.recentRejectedEdits());
    assertEquals(1, paused.batchInFlight(), "the batch in flight goes on");

    workflow.resume();
    raw().signal("pause");
    assertEquals(List.of(), handled(workflow).recentRejectedEdits());
    awaitStatus(workflow, s -> "paused by the operator".equals(s.pausedReason()));
    workflow.terminate(null);
    pulls.then(ScriptedPullRecords.deliver(1));
    assertEquals(MirrorPhase.TERMINATED, flow.result("orders").state());
  }

  @Test
  void aTerminateWithABodyOfTheWrongShapeIsRejectedInStatusAndDoesNotTerminate() throws Exception {
    CdcFlowWorkflow workflow = startRunning();

    raw().signal("terminate", Map.of("cancelInFlight", "soon"));
    raw().signal("terminate", List.of(true));
    MirrorStatus status = handled(workflow);

    List<RejectedEdit> rejected = status.recentRejectedEdits();
    assertEquals(2, rejected.size(), rejected::toString);
    assertRejected(rejected.get(0), "{\"cancelInFlight\":\"soon\"}", "terminate: cancelInFlight must be true or false, got \"soon\"");
    assertRejected(rejected.get(1), "[true]",
        "terminate: the body must be a JSON object such as {\"cancelInFlight\": true}, or nothing, got [true]");
    // Edits are refused once a mirror terminates: the marker edit being pending shows it does not.
    assertEquals(MirrorPhase.RUNNING, status.state());

    raw().signal("terminate", Map.of("cancelInFlight", true));
    assertEquals(MirrorPhase.TERMINATED, flow.result("orders").state(), "a good body still terminates");
  }

  @Test
  void anEditSignalWhoseBodyIsNotAnObjectIsRejectedInStatus() throws Exception {
    CdcFlowWorkflow workflow = startRunning();

    raw().signal("edit", "yes");
    raw().signal("edit", List.of(Map.of("batchSize", 10)));
    MirrorStatus status = handled(workflow);

    List<RejectedEdit> rejected = status.recentRejectedEdits();
    assertEquals(2, rejected.size(), rejected::toString);
    assertRejected(rejected.get(0), "\"yes\"",
        "invalid edit: the edit must be a JSON object such as {\"batchSize\": 5000}, got \"yes\"");
    assertRejected(rejected.get(1), "[{\"batchSize\":10}]",
        "invalid edit: the edit must be a JSON object such as {\"batchSize\": 5000}, got [{\"batchSize\":10}]");
    assertEquals(1, status.pendingEdits().size(), "only the marker edit is pending");

    workflow.terminate(new StopRequest(true));
    flow.result("orders");
  }

  @Test
  void anEditSignalWithAFieldOfTheWrongTypeIsRejectedInStatus() throws Exception {
    CdcFlowWorkflow workflow = startRunning();

    raw().signal("edit", Map.of("batchSize", "lots"));
    raw().signal("edit", Map.of("excludedOperations", Map.of("delete", true)));
    MirrorStatus status = handled(workflow);

    List<RejectedEdit> rejected = status.recentRejectedEdits();
    assertEquals(2, rejected.size(), rejected::toString);
    assertRejected(rejected.get(0), "{\"batchSize\":\"lots\"}", "invalid edit: batchSize must be a number, got \"lots\"");
    assertRejected(rejected.get(1), "{\"excludedOperations\":{\"delete\":true}}",
        "invalid edit: excludedOperations must be a list of strings, got {\"delete\":true}");

    workflow.terminate(new StopRequest(true));
    flow.result("orders");
  }

  @Test
  void anEditUpdateWhoseBodyIsNotAnObjectOrHasAFieldOfTheWrongTypeIsAnsweredPlainly() throws Exception {
    CdcFlowWorkflow workflow = startRunning();

    assertUpdateRejected("yes", "invalid edit: the edit must be a JSON object such as {\"batchSize\": 5000}, got \"yes\"");
    assertUpdateRejected(List.of(1, 2), "invalid edit: the edit must be a JSON object such as {\"batchSize\": 5000}, got [1,2]");
    assertUpdateRejected(Map.of("batchSize", Map.of("value", 5)), "invalid edit: batchSize must be a number, got {\"value\":5}");
    assertUpdateRejected(Map.of("splitLargeEvents", "yes"), "invalid edit: splitLargeEvents must be true or false, got \"yes\"");

    MirrorStatus status = workflow.status();
    assertEquals(List.of(), status.pendingEdits());
    assertEquals(List.of(), status.recentRejectedEdits(), "a rejected update never enters history or state");
    workflow.terminate(new StopRequest(true));
    flow.result("orders");
  }

  private void assertUpdateRejected(Object body, String reason) {
    WorkflowUpdateException rejected = assertThrows(WorkflowUpdateException.class,
        () -> raw().update("edit", EditResult.class, body));
    ApplicationFailure failure = assertInstanceOf(ApplicationFailure.class, rejected.getCause());
    assertEquals(reason, failure.getOriginalMessage());
    assertFalse(failure.getType().contains("jackson") || failure.getType().contains("DataConverter"), failure.getType());
  }

  @Test
  void aWorkflowStartedWithAnUnknownSettingFailsNamingIt() throws Exception {
    ApplicationFailure failure = startFailing("misspelt", settings -> settings.put("batchSise", settings.remove("batchSize")));

    assertEquals(FailureTypes.INVALID_CONFIGURATION, failure.getType());
    assertTrue(failure.isNonRetryable());
    assertTrue(failure.getOriginalMessage().startsWith(
        "invalid mirror input: config.settings has an unknown field \"batchSise\" (known fields: batchSize, "),
        failure.getOriginalMessage());
    assertFalse(failure.getOriginalMessage().contains("jackson"), failure.getOriginalMessage());
    assertEquals(List.of(), pulls.calls(), "nothing was set up");
    flow.captureHistory("misspelt", null, "start-with-unknown-setting");
  }

  @Test
  void aWorkflowStartedWithASettingOfTheWrongTypeFailsNamingIt() throws Exception {
    ApplicationFailure failure = startFailing("wrongtype", settings -> settings.put("batchSize", "lots"));

    assertEquals(FailureTypes.INVALID_CONFIGURATION, failure.getType());
    assertEquals("invalid mirror input: config.settings.batchSize must be a whole number, got \"lots\"",
        failure.getOriginalMessage());
  }

  /** Starts mirror {@code name} through a raw client with its settings changed, and returns why it failed. */
  @SuppressWarnings("unchecked")
  private ApplicationFailure startFailing(String name, java.util.function.Consumer<Map<String, Object>> change) {
    MirrorConfig mirror = new MirrorConfig(name, "orders-mongo", "warehouse-pg", "shop", List.of("orders"), "public",
        Fixtures.smallSettings());
    Map<String, Object> input = JSON.convertValue(CdcFlowInput.newMirror(mirror), Map.class);
    change.accept((Map<String, Object>) ((Map<String, Object>) input.get("config")).get("settings"));
    WorkflowStub stub = flow.client.newUntypedWorkflowStub("CdcFlow", WorkflowOptions.newBuilder()
        .setWorkflowId(MirrorIds.workflowId(name)).setTaskQueue(WorkerEnvironment.TASK_QUEUE).build());
    stub.start(input);
    WorkflowFailedException failed = assertThrows(WorkflowFailedException.class, () -> flow.result(name));
    return assertInstanceOf(ApplicationFailure.class, failed.getCause());
  }
}
