package io.mongocdc.workflows;

import static org.junit.jupiter.api.Assertions.fail;

import io.mongocdc.activities.CommitCheckpointActivityImpl;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.InMemoryCatalog;
import io.mongocdc.activities.InMemoryDestination;
import io.mongocdc.activities.InMemorySnapshotCatalog;
import io.mongocdc.activities.RecordMirrorStateActivityImpl;
import io.mongocdc.activities.ScriptedSource;
import io.mongocdc.activities.SetupMirrorActivityImpl;
import io.mongocdc.activities.SnapshotActivityImpl;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorStatus;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * A Temporal test environment running the mirror workflow with the real setup and commit
 * activities over in-memory ports, and a PullRecords activity of the test's choosing.
 */
public final class FlowEnvironment implements AutoCloseable {

  static final String TASK_QUEUE = MirrorIds.DEFAULT_TASK_QUEUE;

  /** A fixed identity keeps the machine's host name out of captured histories. */
  static final String IDENTITY = "mongo-cdc-test";

  public final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
      .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setIdentity(IDENTITY).build())
      .build());
  public final WorkflowClient client = env.getWorkflowClient();
  public final InMemoryCatalog catalog;
  public final InMemoryDestination destination;

  public FlowEnvironment(PullRecordsActivity pullRecords, ChangeStreamOpener stream) {
    this(new InMemoryDestination(), new InMemoryCatalog(), pullRecords, stream);
  }

  public FlowEnvironment(InMemoryDestination destination, InMemoryCatalog catalog, PullRecordsActivity pullRecords,
      ChangeStreamOpener stream) {
    this.destination = destination;
    this.catalog = catalog;
    // Heartbeats reach the test server at once, so cancellations are seen without delay.
    Worker worker = env.newWorker(TASK_QUEUE,
        WorkerOptions.newBuilder().setMaxHeartbeatThrottleInterval(Duration.ofMillis(50)).build());
    worker.registerWorkflowImplementationTypes(CdcFlowWorkflowImpl.class);
    ScriptedSource source = new ScriptedSource(stream, Fixtures.BEFORE_EVENTS, Fixtures.peers());
    worker.registerActivitiesImplementations(
        new SetupMirrorActivityImpl(Fixtures.peers(), source, destination, catalog),
        pullRecords,
        new CommitCheckpointActivityImpl(catalog),
        new RecordMirrorStateActivityImpl(catalog),
        new SnapshotActivityImpl(source, destination, new InMemorySnapshotCatalog()));
    env.start();
  }

  /** The run id of the first run of the last mirror started. */
  String firstRunId;

  /** Starts the mirror; the stub returned addresses its latest run, across continue-as-new. */
  CdcFlowWorkflow start(MirrorConfig mirror) {
    CdcFlowWorkflow starter = client.newWorkflowStub(CdcFlowWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(MirrorIds.workflowId(mirror.name()))
        .setTaskQueue(TASK_QUEUE)
        .build());
    firstRunId = WorkflowClient.start(starter::run, CdcFlowInput.newMirror(mirror)).getRunId();
    return client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(mirror.name()));
  }

  /**
   * The final status of the mirror's latest run, once it completes. Waits through describe, not
   * getResult: getResult lets the test server skip time, which would fire the heartbeat
   * timeout of an activity still stopping in real time.
   */
  public MirrorStatus result(String mirror) {
    WorkflowStub stub = client.newUntypedWorkflowStub(MirrorIds.workflowId(mirror));
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      if (System.nanoTime() > deadline) {
        fail("mirror " + mirror + " did not complete");
      }
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
    }
    return stub.getResult(MirrorStatus.class);
  }

  /** Waits until the mirror's latest run is not its first one: it continued as new. */
  String awaitNextRun(String mirror) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      String latest = client.newUntypedWorkflowStub(MirrorIds.workflowId(mirror)).describe().getExecution().getRunId();
      if (!latest.equals(firstRunId)) {
        return latest;
      }
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
    }
    return fail("mirror " + mirror + " did not continue as new");
  }

  void captureHistory(String mirror, String runId, String name) {
    Histories.capture(client, MirrorIds.workflowId(mirror), runId, name);
  }

  /**
   * Queries status until it satisfies {@code condition}: a signal is applied at the workflow's
   * next task, which the test cannot observe otherwise.
   */
  public static MirrorStatus awaitStatus(CdcFlowWorkflow workflow, Predicate<MirrorStatus> condition) {
    // Generous: a snapshot and several batches may have to pass on a loaded machine.
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    MirrorStatus status = workflow.status();
    while (!condition.test(status)) {
      if (System.nanoTime() > deadline) {
        fail("status never got there; last: " + status);
      }
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      status = workflow.status();
    }
    return status;
  }

  @Override
  public void close() {
    env.close();
  }
}
