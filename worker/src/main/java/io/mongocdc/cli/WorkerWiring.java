package io.mongocdc.cli;

import io.mongocdc.activities.CommitCheckpointActivityImpl;
import io.mongocdc.activities.PeerRegistry;
import io.mongocdc.activities.PullRecordsActivityImpl;
import io.mongocdc.activities.RecordMirrorStateActivityImpl;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.activities.SetupMirrorActivityImpl;
import io.mongocdc.activities.SnapshotActivityImpl;
import io.mongocdc.workflows.CdcFlowWorkflowImpl;
import io.mongocdc.metrics.PipelineMetrics;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Registers the mirror workflow and its activities, over the given ports, on a worker. The tests'
 * Temporal environment builds its workers here too, so they run what production registers.
 */
public final class WorkerWiring {

  /**
   * The SDK sends a heartbeat at most every 0.8 x heartbeat timeout (24 s for PullRecords) unless
   * capped; a cancellation is only learnt from a heartbeat that reaches the server. Capping the
   * interval at the progress interval makes a pause with cancelInFlight take effect in about 2 s.
   */
  public static final Duration MAX_HEARTBEAT_THROTTLE_INTERVAL = Duration.ofSeconds(2);

  /**
   * Activities one worker runs at once. A running mirror holds one (its PullRecords) for a whole
   * batch, or up to {@code parallelPartitions} while it copies a snapshot; a mirror whose activity
   * finds no free slot waits in the task queue for this or another worker. Temporal's default.
   */
  public static final int DEFAULT_MAX_CONCURRENT_ACTIVITIES = 200;
  /** Workflow tasks one worker runs at once: short decisions, never I/O. Temporal's default. */
  public static final int DEFAULT_MAX_CONCURRENT_WORKFLOW_TASKS = 200;

  private WorkerWiring() {}

  public static WorkerOptions workerOptions() {
    return workerOptions(DEFAULT_MAX_CONCURRENT_ACTIVITIES, DEFAULT_MAX_CONCURRENT_WORKFLOW_TASKS);
  }

  /** The worker's options with these limits on the work it takes at once. */
  public static WorkerOptions workerOptions(int maxConcurrentActivities, int maxConcurrentWorkflowTasks) {
    return WorkerOptions.newBuilder()
        .setMaxHeartbeatThrottleInterval(MAX_HEARTBEAT_THROTTLE_INTERVAL)
        .setMaxConcurrentActivityExecutionSize(maxConcurrentActivities)
        .setMaxConcurrentWorkflowTaskExecutionSize(maxConcurrentWorkflowTasks)
        .build();
  }

  /** Registers the workflow and activities; the activities publish batch metrics to {@code metrics}. */
  public static void register(
      Worker worker, PeerRegistry peers, WorkerPorts ports, PullTuning tuning, PipelineMetrics metrics) {
    register(worker, peers, ports, tuning, System::nanoTime, metrics);
  }

  /**
   * Registers the workflow and activities, the pipeline timing its batches (idle timeout, batch
   * duration) by {@code nanoClock}: the system's in production, a test's own in tests.
   */
  public static void register(Worker worker, PeerRegistry peers, WorkerPorts ports, PullTuning tuning,
      LongSupplier nanoClock, PipelineMetrics metrics) {
    worker.registerWorkflowImplementationTypes(CdcFlowWorkflowImpl.class);
    worker.registerActivitiesImplementations(
        new SetupMirrorActivityImpl(peers, ports.source(), ports.destination(), ports.catalog()),
        new PullRecordsActivityImpl(ports.source(), ports.destination(), tuning, nanoClock, metrics,
            ports.catalog()::recordFailedAttempt, ports.catalog()::setAside),
        new CommitCheckpointActivityImpl(ports.catalog()),
        new RecordMirrorStateActivityImpl(ports.catalog()),
        new SnapshotActivityImpl(ports.source(), ports.destination(), ports.snapshots(), metrics,
            ports.catalog()::setAside));
  }
}
