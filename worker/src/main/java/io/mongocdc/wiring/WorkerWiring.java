package io.mongocdc.wiring;

import io.mongocdc.activities.ActivityFailureInterceptor;
import io.mongocdc.activities.CommitCheckpointActivityImpl;
import io.mongocdc.activities.FieldRuleActivityImpl;
import io.mongocdc.activities.MirrorRedactions;
import io.mongocdc.ports.FailedAttemptLog;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.activities.PullRecordsActivityImpl;
import io.mongocdc.activities.RecordMirrorStateActivityImpl;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.activities.SetupMirrorActivityImpl;
import io.mongocdc.activities.SnapshotActivityImpl;
import io.mongocdc.activities.TypedColumnActivityImpl;
import io.mongocdc.activities.VerifyActivityImpl;
import io.mongocdc.workflows.CdcFlowWorkflowImpl;
import io.mongocdc.workflows.VerifyMirrorWorkflowImpl;
import io.mongocdc.metrics.PipelineMetrics;
import io.temporal.client.WorkflowClient;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import java.util.Objects;
import java.util.stream.Stream;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Registers the mirror workflow and its activities, over the given ports, on a worker of a factory
 * made here ({@link #workers}), whose workers classify their activities' failures. The tests'
 * Temporal environment and {@code mongo-cdc dev} build their workers here too, so they run what
 * production registers.
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

  /**
   * A Temporal worker factory whose workers classify every activity's failure ({@link
   * ActivityFailureInterceptor}); the only kind {@link #register} takes, so no worker runs the
   * project's activities without it.
   */
  public static final class Workers {
    private final WorkerFactory factory;

    private Workers(WorkerFactory factory) {
      this.factory = factory;
    }

    /** The Temporal factory, to start and stop its workers. */
    public WorkerFactory factory() {
      return factory;
    }
  }

  /**
   * Workers on {@code client}; {@code others} (a test's interceptors) see each activity's
   * failure as Temporal will: the classifying interceptor is the innermost.
   */
  public static Workers workers(WorkflowClient client, WorkerInterceptor... others) {
    return new Workers(WorkerFactory.newInstance(client, factoryOptions(others)));
  }

  /** The factory options of {@link #workers}: the classifying interceptor first, {@code others} after it. */
  public static WorkerFactoryOptions factoryOptions(WorkerInterceptor... others) {
    WorkerInterceptor[] interceptors = Stream.concat(Stream.of(new ActivityFailureInterceptor()), Stream.of(others))
        .toArray(WorkerInterceptor[]::new);
    return WorkerFactoryOptions.newBuilder().setWorkerInterceptors(interceptors).build();
  }

  public static WorkerOptions workerOptions() {
    return workerOptions(null, true, DEFAULT_MAX_CONCURRENT_ACTIVITIES, DEFAULT_MAX_CONCURRENT_WORKFLOW_TASKS);
  }

  /**
   * The worker's options.
   *
   * @param identity how the worker names itself to Temporal (in an activity's or workflow task's
   *     history and a pending activity's last worker); null for the SDK's {@code <pid>@<host>}
   * @param stickyWorkflows whether a workflow's tasks go to the worker that ran it last, which
   *     keeps it cached (Temporal's sticky execution). A Temporal server hands the tasks of a
   *     worker that stopped polling to the others after a few seconds; the standalone test server
   *     ({@code mongo-cdc dev}) never does, so there a mirror last run by a killed worker would
   *     wait for ever: off, every workflow task goes to the task queue and carries the history
   * @param maxConcurrentActivities activities (batches, commits, snapshot partitions, set-up steps)
   *     the worker runs at once, at most; a worker with all its slots busy stops polling, so the
   *     others take the next ones
   * @param maxConcurrentWorkflowTasks workflow tasks the worker runs at once, at most
   */
  public static WorkerOptions workerOptions(String identity, boolean stickyWorkflows, int maxConcurrentActivities,
      int maxConcurrentWorkflowTasks) {
    WorkerOptions.Builder options = WorkerOptions.newBuilder()
        .setMaxHeartbeatThrottleInterval(MAX_HEARTBEAT_THROTTLE_INTERVAL)
        .setMaxConcurrentActivityExecutionSize(maxConcurrentActivities)
        .setMaxConcurrentWorkflowTaskExecutionSize(maxConcurrentWorkflowTasks);
    if (identity != null) {
      options.setIdentity(identity);
    }
    if (!stickyWorkflows) {
      // A zero schedule-to-start timeout: the worker asks for no sticky queue when it completes a task.
      options.setStickyQueueScheduleToStartTimeout(Duration.ZERO);
    }
    return options.build();
  }

  /**
   * Registers the workflow and activities on a new worker of {@code workers} polling {@code
   * taskQueue}; the activities publish batch metrics to {@code metrics}.
   */
  public static void register(Workers workers, String taskQueue, WorkerOptions options, PeerRegistry peers,
      WorkerPorts ports, PullTuning tuning, PipelineMetrics metrics) {
    register(workers, taskQueue, options, peers, ports, tuning, System::nanoTime, metrics);
  }

  /**
   * Registers the workflow and activities, the pipeline timing its batches (idle timeout, batch
   * duration) by {@code nanoClock}: the system's in production, a test's own in tests.
   */
  public static void register(Workers workers, String taskQueue, WorkerOptions options, PeerRegistry peers,
      WorkerPorts ports, PullTuning tuning, LongSupplier nanoClock, PipelineMetrics metrics) {
    Worker worker = Objects.requireNonNull(workers, "workers").factory.newWorker(taskQueue, options);
    worker.registerWorkflowImplementationTypes(CdcFlowWorkflowImpl.class, VerifyMirrorWorkflowImpl.class);
    MirrorRedactions redactions = new MirrorRedactions(peers.fieldHashKey(), ports.catalog());
    worker.registerActivitiesImplementations(
        new SetupMirrorActivityImpl(peers, ports.source(), ports.destination(), ports.catalog(), redactions),
        new PullRecordsActivityImpl(ports.source(), ports.destination(), tuning, nanoClock, metrics,
            FailedAttemptLog.of(ports.catalog()), ports.catalog()::setAside, ports.catalog()::recordVisibleThrough,
            ports.catalog()::recordWaitingSince, ports.catalog()::recordOplogSpan, redactions, ports.snapshots()),
        new CommitCheckpointActivityImpl(ports.catalog()),
        new RecordMirrorStateActivityImpl(ports.catalog()),
        new SnapshotActivityImpl(ports.source(), ports.destination(), ports.snapshots(), metrics,
            ports.catalog()::setAside, ports.catalog()::recordWaitingSince, ports.catalog()::recordOplogSpan,
            redactions),
        new VerifyActivityImpl(ports.source(), ports.destination(), ports.catalog(), ports.verifications(),
            VerifyActivityImpl.SETTLE_AT_MOST, redactions),
        new TypedColumnActivityImpl(ports.destination()),
        new FieldRuleActivityImpl(ports.destination(), ports.catalog(), redactions));
  }
}
