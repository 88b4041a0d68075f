package io.mongocdc.faults;

import io.mongocdc.activities.Checkpoints;
import io.mongocdc.snapshot.SnapshotPosition;
import io.mongocdc.testing.ActivityInterception;
import io.mongocdc.testing.ShortHeartbeatTimeout;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.model.CommitCheckpointRequest;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.PullRecordsRequest;
import io.mongocdc.workflows.model.SnapshotPartitionRequest;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotPlanRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.serviceclient.RpcRetryOptions;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test server, and the worker of the scenario running: the production wiring over the
 * scenario's ports with faults (see {@link WorkerEnvironment}); a crash replaces it with a new
 * one over new ports. The worker's heartbeats pass through a {@link HeartbeatPartition}; every
 * setup, pull and commit attempt is recorded with the scenario of its mirror ({@link Scenario#attempt}).
 */
final class FaultHarness implements AutoCloseable {

  /**
   * The heartbeat timeout of PullRecords and CopySnapshotPartition on the suite's worker (see
   * {@link ShortHeartbeatTimeout}): how long a crashed or stalled attempt is waited out, in real time.
   */
  private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(2);
  /**
   * The driver's status query gives up after this long and the client asks again. The test
   * server can lose a query task sent to a sticky queue in the instant of a continue-as-new
   * (the query would then wait out the client's 10 s default); asked again, it is answered.
   */
  static final Duration QUERY_TIMEOUT = Duration.ofSeconds(1);
  /** How long a sleep on an idle test server is, to tell whether its clock still skips. */
  private static final Duration STUCK_CLOCK_PROBE = Duration.ofMillis(200);

  final HeartbeatPartition partition = new HeartbeatPartition();
  final DeadStickyQueue deadSticky = new DeadStickyQueue();
  final Map<String, Scenario> scenarios = new ConcurrentHashMap<>();
  final WorkerEnvironment temporal = WorkerEnvironment.builder()
      .identity("mongo-cdc-faults")
      .serviceStubs(WorkflowServiceStubsOptions.newBuilder()
          .setGrpcClientInterceptors(List.of(partition, deadSticky))
          .setRpcQueryTimeout(QUERY_TIMEOUT)
          // The client's own retries of a call end within the scenario's time, so the driver
          // sees a failure and decides, rather than retrying a lost query for a minute.
          .setRpcRetryOptions(RpcRetryOptions.newBuilder().setExpiration(Duration.ofSeconds(5)).validateBuildWithDefaults())
          .build())
      .interceptors(new ShortHeartbeatTimeout(HEARTBEAT_TIMEOUT), attempts())
      .start();
  final TestWorkflowEnvironment env = temporal.testServer;
  final WorkflowClient client = temporal.client;

  /**
   * Between scenarios, when nothing runs on it: whether the test server's clock no longer skips.
   * An idle server moves its clock at once to the end of a sleep; one that holds a leaked
   * time-skipping lock lets the sleep pass in real time.
   */
  boolean timeSkippingStuck() {
    long began = System.nanoTime();
    env.sleep(STUCK_CLOCK_PROBE);
    return System.nanoTime() - began >= STUCK_CLOCK_PROBE.toNanos() * 3 / 4;
  }

  /** Starts the scenario's worker, with new ports: new destination connections, the same source and catalog. */
  void startWorker(Scenario scenario) {
    temporal.startWorker(scenario.lane.peers, scenario.newPorts(), scenario.tuning, scenario.workload.clock);
  }

  /**
   * Kills the worker as a crash would (activity threads interrupted, workflow cache gone; once it
   * has terminated it reports nothing more) and starts a new one on the same task queue, with new
   * activity instances and so new destination connections.
   */
  synchronized void crashWorker(Scenario scenario) {
    temporal.stopWorker();
    deadSticky.drainLast(env.getWorkflowServiceStubs(), env.getNamespace());
    startWorker(scenario);
  }

  /** The scenario is over: its worker stops before the next scenario's starts. */
  void stopWorker() {
    temporal.stopWorker();
  }

  Scenario of(String mirror) {
    Scenario s = scenarios.get(mirror);
    if (s == null) {
      throw new IllegalStateException("no scenario for mirror " + mirror);
    }
    return s;
  }

  /** Runs every setup, pull and commit attempt through {@link Scenario#attempt} of its mirror's scenario. */
  WorkerInterceptor attempts() {
    return ActivityInterception.of((context, input, proceed) -> {
      Object request = input.getArguments()[0];
      return switch (context.getInfo().getActivityType()) {
        case ActivityNames.VALIDATE_MIRROR, ActivityNames.CREATE_DESTINATION_TABLES, ActivityNames.REGISTER_MIRROR,
            ActivityNames.COMMITTED_BATCH_ID, ActivityNames.TAKE_STARTING_POINT,
            ActivityNames.LIST_SOURCE_COLLECTIONS ->
            of(((MirrorConfig) request).name()).attempt("setup", 0, context, proceed::get);
        case ActivityNames.PULL_RECORDS -> {
          PullRecordsRequest pull = (PullRecordsRequest) request;
          Scenario scenario = of(pull.mirror().name());
          scenario.watching(pull.mirror().collections());
          yield scenario.attempt("pull", pull.batchId(), context, proceed::get);
        }
        case ActivityNames.PLAN_SNAPSHOT -> {
          SnapshotPlanRequest plan = (SnapshotPlanRequest) request;
          Scenario scenario = of(plan.mirror().name());
          scenario.snapshotStarts(plan.collection(), SnapshotPosition.tokenOf(Checkpoints.toPosition(plan.position())));
          yield scenario.attempt("plan", 0, context, () -> {
            ActivityOutput out = proceed.get();
            scenario.planned((SnapshotPlan) out.getResult());
            return out;
          });
        }
        case ActivityNames.COPY_SNAPSHOT_PARTITION -> {
          SnapshotPartitionRequest copy = (SnapshotPartitionRequest) request;
          yield of(copy.mirror().name()).attempt("copy", copy.partition(), context, proceed::get);
        }
        case ActivityNames.COMMIT_CHECKPOINT -> {
          CommitCheckpointRequest commit = (CommitCheckpointRequest) request;
          yield of(commit.mirror()).attempt("commit", commit.batchId(), context, proceed::get);
        }
        default -> proceed.get();
      };
    });
  }

  @Override
  public synchronized void close() {
    partition.heal();
    deadSticky.close();
    temporal.close();
  }
}
