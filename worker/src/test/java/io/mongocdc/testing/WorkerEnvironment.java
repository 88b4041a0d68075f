package io.mongocdc.testing;

import static org.junit.jupiter.api.Assertions.fail;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.wiring.WorkerWiring;
import io.mongocdc.metrics.PipelineMetrics;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.Histories;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorStatus;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * A Temporal test server and the mirror worker as production builds it: {@link WorkerWiring}
 * registers the workflow and its activities, over the ports the test gives, on the default task
 * queue, with the production worker options. What differs from production is only what a test
 * swaps: the ports (source, destination, catalog), the pipeline's clock, the server, and worker
 * interceptors a test adds to watch or script activity calls.
 *
 * <p>One deviation from the production worker options: heartbeats are throttled to 50 ms, not
 * 2 s, so a cancellation reaches an activity at once and a test does not wait for it.
 *
 * <p>A worker runs on its own {@link WorkerFactory}, so a test can stop it as a crash would and
 * start a new one on the same task queue ({@link #stopWorker}, then {@link #startWorker} again).
 */
public final class WorkerEnvironment implements AutoCloseable {

  public static final String TASK_QUEUE = MirrorIds.DEFAULT_TASK_QUEUE;

  /** A fixed identity keeps the machine's host name out of captured histories. */
  public static final String IDENTITY = "mongo-cdc-test";

  static final Duration HEARTBEAT_THROTTLE = Duration.ofMillis(50);

  private static final Duration CLOSE_WAIT = Duration.ofSeconds(30);
  /** How long {@link #awaitStatus} waits on a status that does not change. */
  private static final Duration STATUS_STALL = Duration.ofSeconds(60);

  public final TestWorkflowEnvironment testServer;
  public final WorkflowClient client;
  private final WorkerInterceptor[] interceptors;
  private final boolean stickyWorkflows;
  private WorkerFactory workers;

  /** The run id of the first run of the last mirror {@link #start started}. */
  public String firstRunId;

  private WorkerEnvironment(Builder builder) {
    TestEnvironmentOptions.Builder server = TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setIdentity(builder.identity).build());
    if (builder.serviceStubs != null) {
      server.setWorkflowServiceStubsOptions(builder.serviceStubs);
    }
    this.testServer = TestWorkflowEnvironment.newInstance(server.build());
    this.client = testServer.getWorkflowClient();
    this.interceptors = builder.interceptors.toArray(WorkerInterceptor[]::new);
    this.stickyWorkflows = builder.stickyWorkflows;
    testServer.start();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A test server with no worker yet. */
  public static WorkerEnvironment start() {
    return builder().start();
  }

  /** The production worker options (sticky or not), heartbeats throttled to {@link #HEARTBEAT_THROTTLE}. */
  private WorkerOptions workerOptions() {
    return WorkerOptions.newBuilder(WorkerWiring.workerOptions(null, stickyWorkflows,
            WorkerWiring.DEFAULT_MAX_CONCURRENT_ACTIVITIES, WorkerWiring.DEFAULT_MAX_CONCURRENT_WORKFLOW_TASKS))
        .setMaxHeartbeatThrottleInterval(HEARTBEAT_THROTTLE).build();
  }

  /** Starts a worker over {@code ports} with the default tuning and the system clock. */
  public WorkerEnvironment startWorker(PeerRegistry peers, WorkerPorts ports) {
    return startWorker(peers, ports, PullTuning.defaults(), System::nanoTime);
  }

  /**
   * Starts a worker polling {@link #TASK_QUEUE}, wired as production wires one, over
   * {@code ports}; its pipeline times batches by {@code nanoClock}.
   */
  public WorkerEnvironment startWorker(PeerRegistry peers, WorkerPorts ports, PullTuning tuning,
      LongSupplier nanoClock) {
    return startWorker(peers, ports, tuning, nanoClock, new SimpleMeterRegistry());
  }

  /** {@link #startWorker(PeerRegistry, WorkerPorts, PullTuning, LongSupplier)} publishing its metrics to {@code meters}. */
  public synchronized WorkerEnvironment startWorker(PeerRegistry peers, WorkerPorts ports, PullTuning tuning,
      LongSupplier nanoClock, io.micrometer.core.instrument.MeterRegistry meters) {
    if (workers != null) {
      throw new IllegalStateException("a worker runs already: stop it first");
    }
    WorkerWiring.Workers wired = WorkerWiring.workers(client, interceptors);
    WorkerFactory factory = wired.factory();
    WorkerWiring.register(wired, TASK_QUEUE, workerOptions(), peers, ports, tuning, nanoClock,
        new PipelineMetrics(meters, Clock.systemUTC(), null));
    factory.start();
    workers = factory;
    return this;
  }

  /**
   * Stops the worker as a crash would: activity threads are interrupted and the workflow cache
   * is gone; once this returns, the worker reports nothing more.
   */
  public void stopWorker() {
    if (!stop()) {
      throw new AssertionError("the worker did not stop within 30 s");
    }
  }

  /** False if the worker did not terminate in time. */
  private synchronized boolean stop() {
    WorkerFactory factory = workers;
    if (factory == null) {
      return true;
    }
    workers = null;
    factory.shutdownNow();
    factory.awaitTermination(30, TimeUnit.SECONDS);
    return factory.isTerminated();
  }

  // ---- the mirror's workflow ----

  /** Starts the mirror; the stub returned addresses its latest run, across continue-as-new. */
  public CdcFlowWorkflow start(MirrorConfig mirror) {
    return start(CdcFlowInput.newMirror(mirror));
  }

  /** Starts the mirror from {@code input}; as {@link #start(MirrorConfig)}. */
  public CdcFlowWorkflow start(CdcFlowInput input) {
    MirrorConfig mirror = input.config();
    CdcFlowWorkflow starter = client.newWorkflowStub(CdcFlowWorkflow.class, WorkflowOptions.newBuilder()
        .setWorkflowId(MirrorIds.workflowId(mirror.name()))
        .setTaskQueue(TASK_QUEUE)
        .build());
    firstRunId = WorkflowClient.start(starter::run, input).getRunId();
    return client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(mirror.name()));
  }

  /**
   * Waits until the mirror's latest run has closed, and returns a stub of it. Waits through
   * describe, not getResult: getResult lets the test server skip time, which would fire the
   * heartbeat timeout of an activity still stopping in real time.
   */
  public WorkflowStub awaitClosed(String mirror) {
    WorkflowStub stub = client.newUntypedWorkflowStub(MirrorIds.workflowId(mirror));
    long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
    while (stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      if (System.nanoTime() > deadline) {
        fail("mirror " + mirror + " did not close within " + CLOSE_WAIT.toSeconds() + " s");
      }
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
    }
    return stub;
  }

  /** The final status of the mirror's latest run, once it has closed. */
  public MirrorStatus result(String mirror) {
    return awaitClosed(mirror).getResult(MirrorStatus.class);
  }

  /** Waits until the mirror's latest run is not its first one: it continued as new. */
  public String awaitNextRun(String mirror) {
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

  /** Captures a run's history as a replay resource (see {@link Histories}). */
  public void captureHistory(String mirror, String runId, String name) {
    Histories.capture(client, MirrorIds.workflowId(mirror), runId, name);
  }

  /** Captures the history of the mirror's latest run, once it has closed. */
  public void captureWhenClosed(String mirror, String name) {
    captureHistory(mirror, awaitClosed(mirror).describe().getExecution().getRunId(), name);
  }

  /**
   * Queries status until it satisfies {@code condition}: a signal is applied at the workflow's
   * next task, which the test cannot observe otherwise. Fails when the status has not changed
   * for {@link #STATUS_STALL}: a mirror that moves on slowly (a snapshot and several batches on a
   * busy machine) is waited for; the test's own timeout bounds a mirror that moves for ever.
   */
  public static MirrorStatus awaitStatus(CdcFlowWorkflow workflow, Predicate<MirrorStatus> condition) {
    MirrorStatus status = workflow.status();
    long changedAt = System.nanoTime();
    while (!condition.test(status)) {
      if (System.nanoTime() - changedAt > STATUS_STALL.toNanos()) {
        fail("status never got there, and stood still for " + STATUS_STALL.toSeconds() + " s; last: " + status);
      }
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
      MirrorStatus next = workflow.status();
      if (!next.equals(status)) {
        changedAt = System.nanoTime();
      }
      status = next;
    }
    return status;
  }

  /** Stops the worker (as far as it stops), then the test server. */
  @Override
  public void close() {
    stop();
    testServer.close();
  }

  /** What the test server and the workers of an environment are built with. */
  public static final class Builder {
    private String identity = IDENTITY;
    private WorkflowServiceStubsOptions serviceStubs;
    private final List<WorkerInterceptor> interceptors = new ArrayList<>();
    private boolean stickyWorkflows = true;

    private Builder() {}

    /**
     * Off, workers ask for no sticky queue, as {@code mongo-cdc worker --no-sticky-workflows}
     * does: the test server never hands a stopped worker's sticky tasks to another, so a test
     * that stops a worker and starts a new one needs this (or the fault suite's dead-queue drain).
     */
    public Builder stickyWorkflows(boolean sticky) {
      this.stickyWorkflows = sticky;
      return this;
    }

    /** The identity of the client and so of the workers. */
    public Builder identity(String identity) {
      this.identity = identity;
      return this;
    }

    /** The client's connection to the test server (gRPC interceptors, timeouts, retries). */
    public Builder serviceStubs(WorkflowServiceStubsOptions options) {
      this.serviceStubs = options;
      return this;
    }

    /** Interceptors every worker of the environment runs its workflows and activities through. */
    public Builder interceptors(WorkerInterceptor... interceptors) {
      this.interceptors.addAll(List.of(interceptors));
      return this;
    }

    /** Starts the test server; workers come with {@link WorkerEnvironment#startWorker}. */
    public WorkerEnvironment start() {
      return new WorkerEnvironment(this);
    }
  }
}
