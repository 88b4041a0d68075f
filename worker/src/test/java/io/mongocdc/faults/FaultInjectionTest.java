package io.mongocdc.faults;

import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.mongocdc.ports.BatchSink;
import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.ports.CheckpointCommit;
import io.mongocdc.activities.Checkpoints;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.InMemorySnapshotCatalog;
import io.mongocdc.activities.InMemoryTableOwnership;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.ports.MirrorTable;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.activities.ScriptedSource;
import io.mongocdc.ports.SnapshotCatalog;
import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.CatalogMigrator;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.catalog.PostgresSnapshotCatalog;
import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.destination.PostgresMirrorDestination;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.SnapshotPosition;
import io.mongocdc.source.ChangeStreamException;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.Gate;
import io.mongocdc.testing.ActivityInterception;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.testing.ShortHeartbeatTimeout;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.ChangeHistorySettings;
import io.mongocdc.workflows.model.CommitCheckpointRequest;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.ControlEventPolicy;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.PullRecordsRequest;
import io.mongocdc.workflows.model.SnapshotPartitionRequest;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotPlanRequest;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.mongocdc.workflows.model.StopRequest;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.ActivityCompletionException;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowStub;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.failure.ApplicationFailure;
import io.temporal.serviceclient.RpcRetryOptions;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Model-based randomized fault injection: each scenario (one seed) plays a random workload
 * through the mirror workflow with the real activities, the real PostgreSQL destination and
 * catalog, and random faults; the destination, the catalog and the threads are then checked
 * against a model of the source. See {@code docs/reliability.md}.
 *
 * <p>Every {@link #SNAPSHOT_EVERY}-th seed runs with snapshots on: its collections hold documents
 * before the mirror starts, the mirror copies them in small partitions while the source changes,
 * and faults hit the copy (worker crash, heartbeat stall, PostgreSQL restart, killed connections,
 * a pause, a partition that fails until its retries are spent, a catalog that fails recording a
 * finished partition, a crash right after it recorded one); half of them add a collection to the
 * running mirror.
 *
 * <p>The normal build runs seeds 1..200 in {@link #LANES} lanes side by side. {@code -Dseed=N} reruns
 * one scenario alone; {@code -Dfaults.soak=N} runs seeds 1..N; {@code -Dfaults.lanes=N} sets the
 * lanes; {@code -Dfaults.snapshotEvery=N} runs every N-th seed with snapshots (1: all, 0: none),
 * {@code -Dfaults.snapshotSeedsOnly} only those; {@code -Dfaults.times} prints each scenario's time;
 * {@code -Dfaults.noCrash}, {@code -Dfaults.noHeartbeat} and {@code -Dfaults.noCancel}
 * leave a fault kind out; {@code -Dfaults.debug} prints the driver's looks and, on failure, the
 * workflow's histories.
 */
class FaultInjectionTest {

  private static final int DEFAULT_SCENARIOS = 200;
  /**
   * Scenarios run in this many lanes side by side (each with its own test server, worker and
   * destination server): a scenario mostly waits on round trips, so lanes fill the cores.
   */
  private static final int LANES = Integer.getInteger("faults.lanes", 8);
  private static final Duration SCENARIO_TIMEOUT = Duration.ofSeconds(60);
  /**
   * The heartbeat timeout of PullRecords and CopySnapshotPartition on the suite's worker (see
   * {@link ShortHeartbeatTimeout}): how long a crashed or stalled attempt is waited out, in real time.
   */
  private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(2);
  /**
   * The workflow task timeout of the suite's mirrors: after a worker crash, the task the server
   * sent to the dead worker's sticky queue is given to the new worker after this long.
   */
  private static final Duration WORKFLOW_TASK_TIMEOUT = Duration.ofSeconds(2);
  /**
   * The driver's status query gives up after this long and the client asks again. The test
   * server can lose a query task sent to a sticky queue in the instant of a continue-as-new
   * (the query would then wait out the client's 10 s default); asked again, it is answered.
   */
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(1);
  /** How long a batch failing during a cancelling pause waits for the server's cancellation request. */
  private static final Duration CANCEL_REQUEST_WAIT = Duration.ofSeconds(5);
  /** How long a sleep on an idle test server is, to tell whether its clock still skips. */
  private static final Duration STUCK_CLOCK_PROBE = Duration.ofMillis(200);
  private static final boolean HEARTBEAT_STALLS = !Boolean.getBoolean("faults.noHeartbeat");
  private static final boolean WORKER_CRASHES = !Boolean.getBoolean("faults.noCrash");
  private static final boolean CANCELLING_PAUSES = !Boolean.getBoolean("faults.noCancel");
  /** Seeds divisible by this run with snapshots on (1: every seed; 0: none). */
  static final int SNAPSHOT_EVERY = Integer.getInteger("faults.snapshotEvery", 4);
  /** Attempts of a CopySnapshotPartition activity before the workflow sees it fail (CdcActivityOptions). */
  private static final int COPY_ATTEMPTS = 5;
  /** Runs only the seeds with snapshots on (a quicker check of the snapshot's faults). */
  private static final boolean SNAPSHOT_SEEDS_ONLY = Boolean.getBoolean("faults.snapshotSeedsOnly");
  /** The collection a snapshot scenario may add to its running mirror. */
  static final String ADDED_COLLECTION = "items";
  /**
   * The faults of snapshot scenarios: over a run of the default 200 seeds, each fires in some
   * seeds, or the run fails.
   */
  static final List<String> SNAPSHOT_FAULTS = List.of(
      "fault: crash during snapshot copy",
      "fault: crash after partition recorded done",
      "fault: heartbeat stall during snapshot copy",
      "fault: PostgreSQL restart during snapshot copy",
      "fault: connections killed during snapshot copy",
      "fault: partition done fails before storing",
      "fault: partition done fails after storing",
      "fault: copy fails until retries are spent",
      "fault: pause during snapshot copy",
      "fault: collection added, snapshot from checkpoint");
  private static final String SOURCE_PEER = FaultLane.SOURCE_PEER;
  private static final String DESTINATION_PEER = FaultLane.DESTINATION_PEER;
  /** Idle polls (1 s of the scripted clock each) in a row that end a batch. */
  private static final int IDLE_TIMEOUT_SECONDS = 2;
  /**
   * When no activity attempt started or ended for this long, the driver asks the server whether
   * the mirror waits on a timer (a retry back-off, a heartbeat timeout, the workflow's back-off).
   */
  private static final long QUIET_NANOS = Duration.ofMillis(5).toNanos();

  private static final boolean DEBUG = Boolean.getBoolean("faults.debug");
  /** Prints every scenario's time, plan and counts as it ends. */
  private static final boolean TIMES = Boolean.getBoolean("faults.times");
  private static final FaultCounters COUNTERS = new FaultCounters();
  private static final AtomicInteger MIRRORS = new AtomicInteger();
  private static final long STARTED = System.nanoTime();
  private static final Map<Long, Long> MILLIS_BY_SEED = new ConcurrentHashMap<>();

  private static PostgresCheckpointCatalog catalog;
  private static PostgresSnapshotCatalog snapshotCatalog;
  private static ExecutorService lanes;

  @TestFactory
  Stream<DynamicTest> scenarios() throws SQLException {
    String only = System.getProperty("seed");
    List<Long> seeds = (only != null && !only.isBlank()
        ? LongStream.of(Long.parseLong(only.trim()))
        : LongStream.rangeClosed(1, Long.getLong("faults.soak", DEFAULT_SCENARIOS))).boxed()
        .filter(seed -> !SNAPSHOT_SEEDS_ONLY || isSnapshotSeed(seed)).toList();
    Map<Long, CompletableFuture<Void>> outcomes = new ConcurrentHashMap<>();
    seeds.forEach(seed -> outcomes.put(seed, new CompletableFuture<>()));
    Queue<Long> queue = new ConcurrentLinkedQueue<>(seeds);
    int laneCount = Math.max(1, Math.min(LANES, seeds.size()));
    catalog();
    AtomicInteger laneNumbers = new AtomicInteger();
    lanes = Executors.newFixedThreadPool(laneCount, r -> new Thread(r, "faults-lane-" + laneNumbers.incrementAndGet()));
    for (int i = 1; i <= laneCount; i++) {
      int number = i;
      lanes.execute(() -> runLane(number, queue, outcomes));
    }
    lanes.shutdown();
    // Each dynamic test reports its own seed's outcome, in seed order, while the lanes run on.
    return seeds.stream().map(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
      try {
        outcomes.get(seed).get();
      } catch (ExecutionException e) {
        throw e.getCause();
      }
    }));
  }

  private static void runLane(int number, Queue<Long> queue, Map<Long, CompletableFuture<Void>> outcomes) {
    FaultLane lane;
    try {
      lane = new FaultLane();
    } catch (Throwable t) {
      // No lane: the seeds it would have run fail with the reason, unless another lane runs them.
      for (Long seed = queue.poll(); seed != null; seed = queue.poll()) {
        outcomes.get(seed).completeExceptionally(new AssertionError("lane " + number + " did not start", t));
      }
      return;
    }
    try (lane) {
      for (Long seed = queue.poll(); seed != null; seed = queue.poll()) {
        try {
          runScenario(lane, seed);
          outcomes.get(seed).complete(null);
        } catch (Throwable t) {
          lane.retireHarness();
          outcomes.get(seed).completeExceptionally(t);
        }
      }
    }
  }

  @AfterAll
  static void report() throws InterruptedException {
    if (lanes != null && !lanes.awaitTermination(2, TimeUnit.MINUTES)) {
      lanes.shutdownNow();
    }
    StringBuilder slowest = new StringBuilder();
    MILLIS_BY_SEED.entrySet().stream()
        .sorted(Map.Entry.<Long, Long>comparingByValue().reversed())
        .limit(5)
        .forEach(e -> slowest.append(" seed ").append(e.getKey()).append(": ").append(e.getValue()).append(" ms;"));
    long[] millis = MILLIS_BY_SEED.values().stream().mapToLong(Long::longValue).sorted().toArray();
    String spread = millis.length == 0 ? "" : String.format(" per scenario median %d ms, p90 %d ms, max %d ms;",
        millis[millis.length / 2], millis[(int) (millis.length * 0.9)], millis[millis.length - 1]);
    System.out.printf("fault suite: %d scenarios in %.1f s in %d lanes;%s slowest:%s%n%s", COUNTERS.get("scenarios"),
        (System.nanoTime() - STARTED) / 1e9, LANES, spread, slowest, COUNTERS);
    // A full run must have hit the copy with every snapshot fault: a plan that no longer reaches
    // one would otherwise go unnoticed. (Failed scenarios do not count theirs.)
    boolean fullRun = System.getProperty("seed") == null && Long.getLong("faults.soak", DEFAULT_SCENARIOS) >= DEFAULT_SCENARIOS
        && SNAPSHOT_EVERY == 4 && WORKER_CRASHES && HEARTBEAT_STALLS;
    if (fullRun && COUNTERS.get("scenarios") == Long.getLong("faults.soak", DEFAULT_SCENARIOS)) {
      List<String> never = SNAPSHOT_FAULTS.stream().filter(kind -> COUNTERS.get(kind) == 0).toList();
      if (!never.isEmpty()) {
        fail("snapshot faults that fired in no seed: " + never);
      }
    }
  }

  /** Seeds without snapshots whose remainder by this is 1 keep a change history of orders (0: none). */
  static final int HISTORY_EVERY = Integer.getInteger("faults.historyEvery", 3);

  /** Whether the seed keeps a change history of orders: chosen from the seed alone. */
  static boolean isHistorySeed(long seed) {
    return HISTORY_EVERY > 0 && !isSnapshotSeed(seed) && seed % HISTORY_EVERY == 1 % HISTORY_EVERY;
  }

  /** Whether the seed runs with snapshots on: chosen from the seed alone. */
  static boolean isSnapshotSeed(long seed) {
    return SNAPSHOT_EVERY > 0 && seed % SNAPSHOT_EVERY == 0;
  }

  /** Adds to the suite's counters (for a lane's own figures). */
  static void count(String kind, long n) {
    COUNTERS.add(kind, n);
  }

  private static synchronized PostgresCheckpointCatalog catalog() {
    if (catalog == null) {
      DataSource catalogData = EmbeddedPostgresSupport.newDatabase("faults_catalog");
      CatalogMigrator.migrate(catalogData);
      Catalog open = Catalog.open(catalogData);
      catalog = new PostgresCheckpointCatalog(open);
      snapshotCatalog = new PostgresSnapshotCatalog(open);
    }
    return catalog;
  }

  private static void runScenario(FaultLane lane, long seed) throws Exception {
    Harness env = lane.harness();
    long started = System.nanoTime();
    Scenario scenario = new Scenario(seed, "flt" + MIRRORS.incrementAndGet(), lane, env);
    env.scenarios.put(scenario.mirror.name(), scenario);
    try {
      scenario.run();
      COUNTERS.increment("scenarios");
      COUNTERS.add("events checked", scenario.workload.events.size());
      scenario.counted.forEach(COUNTERS::add);
    } catch (Throwable t) {
      if (DEBUG) {
        scenario.dumpLatestHistories();
      }
      AssertionError failure = new AssertionError("seed=" + seed + " (rerun alone with -Dseed=" + seed + "): "
          + t.getMessage() + "\n" + scenario.describe(), t);
      throw failure;
    } finally {
      scenario.stop();
      env.scenarios.remove(scenario.mirror.name());
      MILLIS_BY_SEED.put(seed, (System.nanoTime() - started) / 1_000_000);
      if (TIMES) {
        System.out.println("seed " + seed + ": " + MILLIS_BY_SEED.get(seed) + " ms; " + scenario.describe());
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  /**
   * A test server, and the worker of the scenario running: the production wiring over the
   * scenario's ports with faults (see {@link WorkerEnvironment}); a crash replaces it with a new
   * one over new ports. The worker's heartbeats pass through a {@link HeartbeatPartition}; every
   * setup, pull and commit attempt is recorded with the scenario of its mirror ({@link Attempts}).
   */
  static final class Harness implements AutoCloseable {
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

  /** Faults that fire when the reader reaches a chosen event (it waits at a gate meanwhile). */
  enum GateFault {
    /** pg_terminate_backend of every client backend of the destination database. */
    KILL_CONNECTIONS,
    /** The destination's PostgreSQL server is stopped and started again. */
    RESTART_POSTGRES,
    /** The worker is killed mid-batch; a new worker takes over. */
    CRASH_WORKER,
    /** The attempt stops heartbeating until Temporal times it out; the retry runs beside it. */
    HEARTBEAT_STALL,
    /** {@code pause {"cancelInFlight": true}}: the batch in flight is cancelled. */
    CANCELLING_PAUSE,
    /** {@code pause}: the copies running finish, no other starts; the driver resumes once status says PAUSED. */
    PAUSE,
    /** Not a fault: the source's documents change while a partition is copied (the driver moves the source on). */
    SOURCE_CHANGES
  }

  /** Where a gate stops the mirror. */
  enum GatePoint {
    /** The change stream's reader, before it yields event number {@code at}. */
    STREAM,
    /** A partition's copy, at the {@code nth} document of the {@code open}-th open of {@code collection}. */
    COPY,
    /** A partition's copy, right after the {@code open}-th partition was recorded done in the catalog. */
    RECORDED_DONE
  }

  /** One gate fault of the plan. */
  static final class PlannedGate {
    final GateFault kind;
    final GatePoint point;
    final int at;
    final Gate gate;
    final String collection;
    final int open;
    final int nth;
    /** The thread that reached (or will reach) the gate, for gates in a copy. */
    volatile Thread thread;
    boolean fired;

    PlannedGate(GateFault kind, int at, Gate gate) {
      this(kind, GatePoint.STREAM, at, gate, null, 0, 0);
    }

    PlannedGate(GateFault kind, GatePoint point, int at, Gate gate, String collection, int open, int nth) {
      this.kind = kind;
      this.point = point;
      this.at = at;
      this.gate = gate;
      this.collection = collection;
      this.open = open;
      this.nth = nth;
    }

    @Override
    public String toString() {
      return switch (point) {
        case STREAM -> kind + " at event " + at;
        case COPY -> kind + " in open " + open + " of " + collection + " at document " + nth;
        case RECORDED_DONE -> kind + " after partition done " + open;
      };
    }
  }

  /**
   * An activity attempt running in this process.
   *
   * @param activity the workflow run and activity id, the same for every attempt of one activity
   * @param sequence the order attempts started in, over the scenario
   */
  record Running(String type, long batchId, String activity, int attempt, long sequence) {}

  // ---------------------------------------------------------------------------------------------

  /** One seed: workload, fault plan, ports with faults, the driver and the oracle. */
  static final class Scenario {
    final long seed;
    final Random random;
    final FaultLane lane;
    final Harness harness;
    final MirrorConfig mirror;
    final RandomWorkload workload;
    final String table;
    final PullTuning tuning;
    final Map<String, Long> counted = new ConcurrentHashMap<>();
    final List<String> plan = new ArrayList<>();
    final List<String> violations = new CopyOnWriteArrayList<>();

    // fault plan
    final List<PlannedGate> gates = new ArrayList<>();
    int sinkWriteFailAt = -1;
    int sinkCommitFailAt = -1;
    int catalogFailAt = -1;
    boolean catalogFailAfterCommit;
    final Map<Integer, List<Object>> stormsAt = new HashMap<>();
    final Map<Integer, Map<String, Object>> editsAt = new HashMap<>();
    /** The catalog commit during which the collection is added (-1: none). */
    int addAt = -1;
    /** The n-th partition recorded done fails, before or after it is stored (-1: none). */
    int doneFailAt = -1;
    boolean doneFailAfterStoring;
    /** Where the source has moved on to when the SOURCE_CHANGES gate opens. */
    ResumeToken sourceMovesTo;

    // snapshots
    /** Whether this seed runs with snapshots on (its collections hold documents before the start). */
    final boolean snapshots;
    /** The mirror keeps a change history of orders, checked event by event at the end. */
    final boolean history;
    /** Whether the scenario adds {@link #ADDED_COLLECTION} to the running mirror. */
    final boolean addsCollection;
    /** The source of a snapshot scenario (null otherwise). */
    final SnapshotScenarioSource source;
    /** Per collection, the position its snapshot started at (its copied rows carry it). */
    final Map<String, ResumeToken> snapshotStarts = new ConcurrentHashMap<>();
    /** Per partition recorded done (collection and range), the last attempt that had started then. */
    final Map<String, Long> recordedDone = new ConcurrentHashMap<>();
    /** The attempts that opened a cursor. */
    final Set<Long> openedBy = ConcurrentHashMap.newKeySet();
    final Set<String> plannedCollections = ConcurrentHashMap.newKeySet();
    final AtomicInteger partitionsRecorded = new AtomicInteger();
    final AtomicLong attemptSequence = new AtomicLong();
    volatile boolean addSent;
    /** A batch ran with the added collection in its change stream: it was copied. */
    volatile boolean added;

    // observations
    final AtomicInteger sinkWrites = new AtomicInteger();
    final AtomicInteger sinkCommits = new AtomicInteger();
    final AtomicInteger catalogCommits = new AtomicInteger();
    final Map<Thread, Running> running = new ConcurrentHashMap<>();
    /** The task token of every attempt that started in this process. */
    final Map<Running, ByteString> tokens = new ConcurrentHashMap<>();
    final Map<Long, Integer> latestPullAttempt = new ConcurrentHashMap<>();
    /** activityId#attempt of every attempt that started in this process. */
    final java.util.Set<String> startedHere = ConcurrentHashMap.newKeySet();
    /** The attempt whose heartbeat timeout the driver waits out (crashed or stalled), if any. */
    volatile Running timeoutExpected;
    /** The activity threads of stalled attempts: they run on beside their retries. */
    final Set<Thread> stuck = ConcurrentHashMap.newKeySet();
    volatile long lastChange = System.nanoTime();
    /** When the scenario fails as timed out (System.nanoTime()). */
    volatile long deadline = Long.MAX_VALUE;
    volatile boolean pausePending;
    /** A cancelling pause was sent and the mirror has not yet reported PAUSED. */
    volatile boolean cancelling;
    volatile boolean restorePauseAtNextCommit;
    volatile boolean ending;
    volatile ResumeToken stored;

    Scenario(long seed, String name, FaultLane lane, Harness harness) {
      this.seed = seed;
      this.random = new Random(seed);
      this.lane = lane;
      this.harness = harness;
      // Chosen from the seed alone, so the seeds without snapshots play what they played before.
      this.snapshots = isSnapshotSeed(seed);
      int events = 30 + random.nextInt(121);
      boolean withDrops = random.nextInt(3) == 0;
      if (snapshots) {
        // Fewer events and few documents in small partitions: the copy and its faults take the time.
        events = 30 + (events - 30) / 2;
        this.addsCollection = random.nextBoolean();
        List<RandomWorkload.CollectionPlan> collections = new ArrayList<>();
        collections.add(new RandomWorkload.CollectionPlan(RandomWorkload.ORDERS, 8 + random.nextInt(23)));
        if (addsCollection) {
          collections.add(new RandomWorkload.CollectionPlan(ADDED_COLLECTION, 6 + random.nextInt(15)));
        }
        // No drops: a snapshot that read after a drop would rightly miss what the model keeps.
        this.workload = new RandomWorkload(random, events, IDLE_TIMEOUT_SECONDS, false, collections);
        this.source = new SnapshotScenarioSource(workload, lane.peers, seed, this::beforeOpen);
      } else {
        this.addsCollection = false;
        this.workload = new RandomWorkload(random, events, IDLE_TIMEOUT_SECONDS, withDrops);
        this.source = null;
      }
      String policy = random.nextBoolean() ? "PAUSE" : "IGNORE";
      SnapshotSettings snapshotSettings = snapshots
          ? new SnapshotSettings(true, 3 + random.nextInt(6), 1 + random.nextInt(3), null)
          : SnapshotSettings.off();
      MirrorSettings settings = MirrorSettings.defaults().toBuilder().batchSize(5 + random.nextInt(36)).idleTimeoutSeconds(IDLE_TIMEOUT_SECONDS).maxBatchDurationSeconds(600)
          .decodeWorkers(1 + random.nextInt(4)).chunkSize(1 + random.nextInt(10)).controlEventPolicy(ControlEventPolicy.valueOf(policy)).continueAsNewEveryBatches(1 + random.nextInt(5))
          .snapshot(snapshotSettings).build();
      this.history = isHistorySeed(seed);
      if (history) {
        // No draw from random: the seed plays the workload and faults it played without history.
        settings = settings.withHistory(new ChangeHistorySettings(null, List.of(RandomWorkload.ORDERS), null));
        count("history scenarios", 1);
      }
      this.mirror = new MirrorConfig(name, SOURCE_PEER, DESTINATION_PEER, RandomWorkload.DATABASE,
          List.of(RandomWorkload.ORDERS), name, settings);
      this.table = tableOf(RandomWorkload.ORDERS);
      plan.add("events=" + events + " transactions=" + workload.transactions + " idleGaps=" + workload.idleGaps
          + " (long " + workload.longIdleGaps + ") drops=" + workload.drops + " settings=" + settings);
      if (snapshots) {
        Map<String, Integer> existing = new LinkedHashMap<>();
        workload.existing.forEach((c, docs) -> existing.put(c, docs.size()));
        plan.add("snapshot: documents before the start " + existing
            + (addsCollection ? ", " + ADDED_COLLECTION + " added to the running mirror" : ""));
        count("snapshot scenarios", 1);
        count("snapshot: documents before the start", existing.values().stream().mapToInt(Integer::intValue).sum());
      }
      count("transactions", workload.transactions);
      count("idle gaps", workload.idleGaps);
      count("idle polls in gaps", workload.idlePolls);
      count("idle gaps ending a batch (>= idle timeout)", workload.longIdleGaps);
      count("collection drops, controlEventPolicy " + policy, workload.drops);
      planFaults(workload.events.size());
      if (snapshots) {
        planSnapshotFaults();
      }
      this.tuning = PullTuning.defaults().withProgressInterval(Duration.ofMillis(20)).withCommitInterval(3 + random.nextInt(18), 0).withShutdownTimeout(Duration.ofSeconds(10));
      plan.add("commitIntervalRecords=" + tuning.commitIntervalRecords());
    }

    /** The ports of a new worker: new destination connections, the scenario's source and catalog, with faults. */
    WorkerPorts newPorts() {
      InMemoryTableOwnership tables = new InMemoryTableOwnership();
      MirrorDestination destination = new FaultyDestination(
          new PostgresMirrorDestination(lane.peers, PostgresSinkOptions.defaults(), tables));
      if (!snapshots) {
        return new WorkerPorts(new ScriptedSource(workload.stream, Fixtures.BEFORE_EVENTS, lane.peers), destination,
            new FaultyCatalog(), new InMemorySnapshotCatalog(), tables);
      }
      // The source and the snapshot catalog outlive the worker, as a database and the catalog do.
      return new WorkerPorts(source, destination, new FaultyCatalog(), new FaultySnapshotCatalog(), tables);
    }

    /** The destination table of a collection of the source database. */
    String tableOf(String collection) {
      return TableNaming.qualified(mirror.destinationSchema(),
          TableNaming.tableName(new Namespace(RandomWorkload.DATABASE, collection)));
    }

    private void count(String kind, long n) {
      counted.merge(kind, n, Long::sum);
    }

    private void planFaults(int events) {
      List<Integer> indexes = new ArrayList<>();
      for (int i = 1; i < events; i++) {
        indexes.add(i);
      }
      Collections.shuffle(indexes, random);
      int next = 0;
      int sourceErrors = random.nextInt(3);
      for (int i = 0; i < sourceErrors; i++) {
        int at = indexes.get(next++);
        workload.stream.failAt(at, new ChangeStreamException("Prematurely reached end of stream", 0, null));
        plan.add("source error at event " + at);
        count("fault: source error", 1);
      }
      int notFound = random.nextInt(3);
      for (int i = 0; i < notFound; i++) {
        int at = indexes.get(next++);
        workload.stream.resumeTokenNotFoundAt(at, 1);
        plan.add("resume token not found at event " + at);
        count("fault: resume token not found", 1);
      }
      GateFault[] kinds = {GateFault.KILL_CONNECTIONS, GateFault.RESTART_POSTGRES, GateFault.CRASH_WORKER,
          GateFault.HEARTBEAT_STALL, GateFault.CANCELLING_PAUSE};
      int[] oneIn = {3, 10, 5, 6, 6};
      for (int k = 0; k < kinds.length; k++) {
        GateFault kind = kinds[k];
        if (random.nextInt(oneIn[k]) == 0 && (kind != GateFault.HEARTBEAT_STALL || HEARTBEAT_STALLS)
            && (kind != GateFault.CRASH_WORKER || WORKER_CRASHES)
            && (kind != GateFault.CANCELLING_PAUSE || CANCELLING_PAUSES)) {
          int at = indexes.get(next++);
          gates.add(new PlannedGate(kind, at, workload.stream.blockAt(at)));
          plan.add(kind + " at event " + at);
        }
      }
      switch (random.nextInt(4)) {
        case 0 -> {
          sinkWriteFailAt = 1 + random.nextInt(Math.max(1, events / 4));
          plan.add("sink write " + sinkWriteFailAt + " fails");
        }
        case 1 -> {
          sinkCommitFailAt = 1 + random.nextInt(4);
          plan.add("sink commit " + sinkCommitFailAt + " fails");
        }
        default -> { }
      }
      if (random.nextInt(3) == 0) {
        catalogFailAt = 1 + random.nextInt(4);
        catalogFailAfterCommit = random.nextBoolean();
        plan.add("catalog commit " + catalogFailAt + " fails " + (catalogFailAfterCommit ? "after" : "before")
            + " it is stored");
      }
      // Storms: bursts of pause / resume / edit signals at a batch boundary.
      int storms = random.nextInt(3);
      for (int i = 0; i < storms; i++) {
        int at = 1 + random.nextInt(6);
        List<Object> burst = new ArrayList<>();
        int signals = 1 + random.nextInt(6);
        for (int j = 0; j < signals; j++) {
          burst.add(switch (random.nextInt(3)) {
            case 0 -> "pause";
            case 1 -> "resume";
            default -> randomEdit();
          });
        }
        stormsAt.computeIfAbsent(at, k -> new ArrayList<>()).addAll(burst);
        plan.add("signals " + burst + " at commit " + at);
      }
      int edits = random.nextInt(3);
      for (int i = 0; i < edits; i++) {
        int at = 1 + random.nextInt(6);
        Map<String, Object> edit = randomEdit();
        editsAt.put(at, edit);
        plan.add("edit " + edit + " at commit " + at);
      }
    }

    /**
     * The snapshot's faults: changes made after the starting point (before the copy, and while it
     * runs), gates in partition copies (crash, heartbeat stall, PostgreSQL restart, killed
     * connections, pause), a partition that fails until its retries are spent, a crash right after
     * a partition is recorded done, a catalog that fails recording one, and the collection added
     * to the running mirror.
     */
    private void planSnapshotFaults() {
      int perPartition = mirror.settings().snapshot().documentsPerPartition();
      int changes = workload.applied.size();
      int before = random.nextInt(changes / 2 + 1);
      if (before > 0) {
        source.advanceTo(workload.applied.get(before - 1).token());
      }
      plan.add("snapshot: " + before + " changes made before the copy");
      count("snapshot: changes made after the start, before the copy", before);
      if (random.nextBoolean()) {
        int to = before + random.nextInt(changes - before + 1);
        if (to > before) {
          sourceMovesTo = workload.applied.get(to - 1).token();
          copyGate(GateFault.SOURCE_CHANGES, RandomWorkload.ORDERS, perPartition);
          plan.add("snapshot: source moves on to change " + to + " during the copy");
        }
      }
      GateFault[] kinds = {GateFault.CRASH_WORKER, GateFault.HEARTBEAT_STALL, GateFault.RESTART_POSTGRES,
          GateFault.KILL_CONNECTIONS, GateFault.PAUSE};
      int[] oneIn = {3, 4, 4, 5, 5};
      for (int k = 0; k < kinds.length; k++) {
        GateFault kind = kinds[k];
        if (random.nextInt(oneIn[k]) == 0 && (kind != GateFault.HEARTBEAT_STALL || HEARTBEAT_STALLS)
            && (kind != GateFault.CRASH_WORKER || WORKER_CRASHES)) {
          String collection = addsCollection && random.nextInt(3) == 0 ? ADDED_COLLECTION : RandomWorkload.ORDERS;
          copyGate(kind, collection, perPartition);
        }
      }
      int partitions = partitionsOf(RandomWorkload.ORDERS, perPartition);
      if (random.nextInt(6) == 0) {
        // As many failures in a row as the copy's retry policy allows attempts
        // (CdcActivityOptions.copySnapshotPartition): the workflow backs off, then copies the
        // partitions not done.
        int open = freeOpen(RandomWorkload.ORDERS, perPartition);
        source.failRepeatedly(RandomWorkload.ORDERS, open, COPY_ATTEMPTS);
        plan.add("the partition of open " + open + " of orders fails " + COPY_ATTEMPTS + " times");
      }
      int crashAfterDone = -1;
      if (WORKER_CRASHES && random.nextInt(6) == 0) {
        crashAfterDone = 1 + random.nextInt(partitions);
        PlannedGate g = new PlannedGate(GateFault.CRASH_WORKER, GatePoint.RECORDED_DONE, 0, new Gate(), null,
            crashAfterDone, 0);
        gates.add(g);
        plan.add(g.toString());
      }
      if (random.nextInt(4) == 0) {
        doneFailAt = 1 + random.nextInt(partitions);
        if (doneFailAt == crashAfterDone) {
          doneFailAt++;
        }
        doneFailAfterStoring = random.nextBoolean();
        plan.add("partition done " + doneFailAt + " fails " + (doneFailAfterStoring ? "after" : "before")
            + " it is stored");
      }
      if (addsCollection) {
        addAt = 1 + random.nextInt(3);
        plan.add("add " + ADDED_COLLECTION + " at commit " + addAt);
      }
    }

    /** An open of the collection's partitions that no gate of the plan has taken yet. */
    private int freeOpen(String collection, int perPartition) {
      Set<Integer> taken = new java.util.HashSet<>();
      for (PlannedGate g : gates) {
        if (g.point == GatePoint.COPY && collection.equals(g.collection)) {
          taken.add(g.open);
        }
      }
      int open = 1 + random.nextInt(partitionsOf(collection, perPartition));
      while (taken.contains(open)) {
        open++;
      }
      return open;
    }

    /** About how many partitions the plan of {@code collection} has. */
    private int partitionsOf(String collection, int perPartition) {
      return Math.max(1, (workload.existing.get(collection).size() + perPartition - 1) / perPartition);
    }

    /** A gate at a document of a partition's copy: of the k-th open of the collection, not taken yet. */
    private void copyGate(GateFault kind, String collection, int perPartition) {
      int open = freeOpen(collection, perPartition);
      PlannedGate g = new PlannedGate(kind, GatePoint.COPY, 0, new Gate(), collection, open,
          1 + random.nextInt(perPartition));
      source.arm(collection, open, g);
      gates.add(g);
      plan.add(g.toString());
    }

    /** A batch runs with these collections: once the added one is among them, its snapshot is done. */
    synchronized void watching(List<String> collections) {
      if (!added && collections.contains(ADDED_COLLECTION)) {
        added = true;
        count("fault: collection added, snapshot from checkpoint", 1);
      }
    }

    void snapshotStarts(String collection, ResumeToken start) {
      ResumeToken before = snapshotStarts.putIfAbsent(collection, start);
      if (before != null && !before.equals(start)) {
        violations.add("the snapshot of " + collection + " was planned from " + before + " and from " + start);
      }
    }

    void planned(SnapshotPlan plan) {
      if (plannedCollections.add(plan.collection())) {
        count("snapshot: partitions planned", plan.partitionsTotal());
      }
    }

    /**
     * Before a partition is opened: a partition recorded done is never read again by an attempt
     * that started after it was recorded (one that started before may still be reading it).
     */
    private void beforeOpen(String collection, IdRange range) {
      Running me = running.get(Thread.currentThread());
      count("snapshot: partition reads", 1);
      if (me == null) {
        return;
      }
      openedBy.add(me.sequence());
      Long done = recordedDone.get(collection + " " + range.toJson());
      if (done != null && me.sequence() > done) {
        violations.add("partition " + range.describe() + " of " + collection + " was read again by attempt "
            + me.attempt() + " after it was recorded done");
      }
    }

    private Map<String, Object> randomEdit() {
      Map<String, Object> edit = new LinkedHashMap<>();
      edit.put("batchSize", 3 + random.nextInt(40));
      edit.put("chunkSize", 1 + random.nextInt(12));
      if (random.nextBoolean()) {
        edit.put("decodeWorkers", 1 + random.nextInt(4));
      }
      return edit;
    }

    String describe() {
      return "  plan: " + String.join("; ", plan) + "\n  counted: " + counted + "\n  violations: " + violations;
    }

    /**
     * Runs an activity attempt and records it: what runs in this process tells the driver whether
     * the server's clock may be moved on.
     */
    <T> T attempt(String type, long batchId, ActivityExecutionContext context, Supplier<T> call) {
      int n = context.getInfo().getAttempt();
      String activity = context.getInfo().getRunId() + "/" + context.getInfo().getActivityId();
      startedHere.add(activity + "#" + n);
      Running me = new Running(type, batchId, activity, n, attemptSequence.incrementAndGet());
      if (type.equals("copy") && n > 1) {
        // A retry of a copy runs: the server is done with the earlier attempts, so it answers
        // their heartbeats NOT_FOUND from now on; a stalled one then stops and rolls back.
        tokens.forEach((earlier, token) -> {
          if (earlier.activity().equals(activity) && earlier.attempt() < n) {
            harness.partition.fence(token);
            harness.partition.release(token);
          }
        });
      }
      tokens.put(me, ByteString.copyFrom(context.getTaskToken()));
      if (type.equals("pull")) {
        latestPullAttempt.merge(batchId, n, Math::max);
        Running expected = timeoutExpected;
        if (expected != null && !expected.equals(me)) {
          // The retry of a stalled or crashed attempt runs: the server timed the old attempt out,
          // so it answers that attempt's heartbeats NOT_FOUND from now on, and the retry's
          // heartbeats must reach it.
          timeoutExpected = null;
          ByteString lost = tokens.get(expected);
          if (lost != null) {
            harness.partition.fence(lost);
          }
          harness.partition.heal();
        }
      }
      Thread thread = Thread.currentThread();
      running.put(thread, me);
      lastChange = System.nanoTime();
      try {
        T result = call.get();
        if (type.equals("copy") && !openedBy.contains(me.sequence())) {
          count("snapshot: copies answered from the catalog without reading", 1);
        }
        return result;
      } catch (ActivityCompletionException e) {
        // Cancelled, or told by a heartbeat that the attempt is gone: reported as such.
        count("activity attempts cancelled or timed out", 1);
        if (type.equals("copy") && stuck.contains(thread)) {
          count("stalled copies told NOT_FOUND (cursor closed, rolled back)", 1);
        }
        throw e;
      } catch (RuntimeException e) {
        count("activity attempts failed", 1);
        if (type.equals("pull") && cancelling && awaitCancelRequested()) {
          // A Temporal server does not retry an attempt that fails after its cancellation was
          // requested: it records the failure and the workflow sees the batch end. The test server
          // retries it while the cancellation is pending and loses it (and it also loses a
          // cancellation requested while the retry waits), so the attempt waits for the request
          // the pause signal brings, and its failure is made final, as the server would.
          count("failures after a cancellation request, made final as a Temporal server does", 1);
          throw ApplicationFailure.newNonRetryableFailureWithCause(e.getMessage(), "FailedAfterCancelRequest", e);
        }
        throw e;
      } finally {
        running.remove(thread);
        lastChange = System.nanoTime();
        synchronized (running) {
          running.notifyAll();
        }
      }
    }

    /**
     * Whether the server has, or within {@link #CANCEL_REQUEST_WAIT} gets, a cancellation request
     * for the mirror's activity in flight (the cancelling pause was signalled; the workflow asks
     * once it has handled the signal).
     */
    private boolean awaitCancelRequested() {
      long until = System.nanoTime() + CANCEL_REQUEST_WAIT.toNanos();
      while (true) {
        boolean requested = stub().describe().getRawDescription().getPendingActivitiesList().stream()
            .anyMatch(p -> p.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED);
        if (requested || System.nanoTime() > until) {
          return requested;
        }
        LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
      }
    }

    // ---- the driver ----

    /** The mirror's workflow, whichever run is the latest. */
    private WorkflowStub stub() {
      return harness.client.newUntypedWorkflowStub(MirrorIds.workflowId(mirror.name()));
    }

    void run() throws Exception {
      harness.startWorker(this);
      CdcFlowWorkflow starter = harness.client.newWorkflowStub(CdcFlowWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId(MirrorIds.workflowId(mirror.name()))
          .setTaskQueue(WorkerEnvironment.TASK_QUEUE)
          .setWorkflowTaskTimeout(WORKFLOW_TASK_TIMEOUT)
          .build());
      int refusedBefore = harness.partition.refused();
      WorkflowClient.start(starter::run, CdcFlowInput.newMirror(mirror));
      CdcFlowWorkflow workflow = harness.client.newWorkflowStub(CdcFlowWorkflow.class,
          MirrorIds.workflowId(mirror.name()));
      ResumeToken last = workload.lastToken();
      deadline = System.nanoTime() + SCENARIO_TIMEOUT.toNanos();
      while (stored == null || stored.compareTo(last) < 0 || pausePending || (addsCollection && !added)) {
        if (addsCollection && !addSent && stored != null && stored.compareTo(last) >= 0 && !pausePending) {
          // Every event is delivered before the planned commit came: the collection is added now,
          // and its snapshot then holds all of its changes.
          addCollection(workflow);
        }
        pump(workflow, addsCollection && !added && stored != null && stored.compareTo(last) >= 0
            ? "a batch with the added collection" : "the committed checkpoint to reach the last event");
      }
      ending = true;
      signal(() -> workflow.terminate(null));
      WorkflowStub stub = stub();
      while (stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        pump(workflow, "the workflow to terminate");
      }
      MirrorStatus status = stub.getResult(MirrorStatus.class);
      count("heartbeats of timed-out attempts answered NOT_FOUND", harness.partition.refused() - refusedBefore);
      if (snapshots && source.failuresSpent()) {
        count("fault: copy fails until retries are spent", 1);
      }
      if (DEBUG) {
        dumpLatestHistories();
      }
      if (status.state() != MirrorPhase.TERMINATED) {
        fail("the mirror ended " + status.state());
      }
      check();
    }

    void dumpLatestHistories() {
      try {
        dumpHistories(stub().describe().getRawDescription().getWorkflowExecutionInfo().getExecution().getRunId());
      } catch (RuntimeException e) {
        System.err.println("DEBUG no history: " + e);
      }
    }

    private void dumpHistories(String runId) {
      List<String> runs = new ArrayList<>();
      String run = runId;
      while (run != null && !run.isEmpty()) {
        var history = harness.client.fetchHistory(MirrorIds.workflowId(mirror.name()), run);
        StringBuilder b = new StringBuilder("RUN " + run + "\n");
        for (var e : history.getHistory().getEventsList()) {
          b.append("  ").append(e.getEventId()).append(' ').append(e.getEventTime().getSeconds()).append('.')
              .append(String.format("%03d", e.getEventTime().getNanos() / 1_000_000)).append(' ')
              .append(e.getEventType()).append(' ');
          if (e.hasWorkflowTaskFailedEventAttributes()) {
            b.append(e.getWorkflowTaskFailedEventAttributes().getCause()).append(' ')
                .append(e.getWorkflowTaskFailedEventAttributes().getFailure().getMessage());
          }
          if (e.hasWorkflowTaskTimedOutEventAttributes()) {
            b.append(e.getWorkflowTaskTimedOutEventAttributes().getTimeoutType());
          }
          if (e.hasWorkflowExecutionSignaledEventAttributes()) {
            b.append(e.getWorkflowExecutionSignaledEventAttributes().getSignalName());
          }
          if (e.hasWorkflowTaskScheduledEventAttributes()) {
            b.append(e.getWorkflowTaskScheduledEventAttributes().getTaskQueue().getName()).append(' ')
                .append(e.getWorkflowTaskScheduledEventAttributes().getTaskQueue().getKind());
          }
          if (e.hasActivityTaskScheduledEventAttributes()) {
            b.append(e.getActivityTaskScheduledEventAttributes().getActivityType().getName());
          }
          if (e.hasActivityTaskFailedEventAttributes()) {
            b.append(e.getActivityTaskFailedEventAttributes().getFailure().getMessage());
          }
          if (e.hasActivityTaskCanceledEventAttributes()) {
            b.append("scheduled=").append(e.getActivityTaskCanceledEventAttributes().getScheduledEventId());
          }
          b.append('\n');
        }
        runs.add(0, b.toString());
        var first = history.getHistory().getEvents(0).getWorkflowExecutionStartedEventAttributes();
        run = first.getContinuedExecutionRunId();
      }
      runs.forEach(System.err::print);
    }

    private void pump(CdcFlowWorkflow workflow, String waitingFor) throws SQLException {
      if (System.nanoTime() > deadline) {
        if (DEBUG) {
          Thread.getAllStackTraces().forEach((t, stack) -> {
            if (t.getName().startsWith("mongo-cdc-") || t.getName().startsWith("Activity Executor")) {
              System.err.println("DEBUG thread " + t.getName() + "\n  " + java.util.Arrays.stream(stack)
                  .limit(25).map(String::valueOf).collect(java.util.stream.Collectors.joining("\n  ")));
            }
          });
        }
        MirrorStatus status = status(workflow);
        fail("timed out waiting for " + waitingFor + "; stored=" + stored + " last=" + workload.lastToken()
            + " running=" + running.values() + " status=" + status);
      }
      for (PlannedGate g : gates) {
        if (!g.fired && g.gate.isReached()) {
          g.fired = true;
          fire(g, workflow);
          lastChange = System.nanoTime();
          return;
        }
      }
      long now = System.nanoTime();
      if (now - lastChange >= QUIET_NANOS && runningHere() == 0) {
        lastChange = now;
        if (moveServerClock(workflow)) {
          return;
        }
      }
      LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
    }

    /** Attempts running in this process, apart from stalled ones that run on beside their retries. */
    private int runningHere() {
      int n = 0;
      for (Thread t : running.keySet()) {
        if (!stuck.contains(t)) {
          n++;
        }
      }
      return n;
    }

    private Map.Entry<Thread, Running> runningPull() {
      for (Map.Entry<Thread, Running> e : running.entrySet()) {
        if (e.getValue().type().equals("pull") && !stuck.contains(e.getKey())) {
          return e;
        }
      }
      return null;
    }

    private void fire(PlannedGate g, CdcFlowWorkflow workflow) throws SQLException {
      if (g.point != GatePoint.STREAM) {
        fireInCopy(g, workflow);
        return;
      }
      switch (g.kind) {
        case KILL_CONNECTIONS -> {
          int terminated = killDestinationBackends();
          count("fault: destination connections killed (pg_terminate_backend)", 1);
          count("destination backends terminated", terminated);
          g.gate.release();
        }
        case RESTART_POSTGRES -> {
          lane.destination.restart();
          count("fault: destination PostgreSQL restarted", 1);
          g.gate.release();
        }
        case CRASH_WORKER -> {
          Map.Entry<Thread, Running> pull = runningPull();
          if (pull != null) {
            timeoutExpected = pull.getValue();
          }
          harness.crashWorker(this);
          count("fault: worker crashed mid-batch, a new worker took over", 1);
          g.gate.release();
        }
        case HEARTBEAT_STALL -> {
          Map.Entry<Thread, Running> pull = runningPull();
          if (pull == null) {
            g.gate.release();
            return;
          }
          // The reader stays blocked at the gate and no heartbeat reaches the server until the
          // retry starts; the gate opens only when the scenario ends.
          stuck.add(pull.getKey());
          timeoutExpected = pull.getValue();
          harness.partition.cut();
          count("fault: heartbeat stalled until the heartbeat timeout", 1);
        }
        case CANCELLING_PAUSE -> {
          // The reader stays at the gate: the batch learns of the cancellation from its next
          // heartbeat, and stopping must take the reader out of its blocked read.
          cancelling = true;
          signal(() -> workflow.pause(new StopRequest(true)));
          pausePending = true;
          count("fault: pause cancelling the batch in flight", 1);
        }
        default -> throw new IllegalStateException(g.kind.name());
      }
    }

    /** A gate in a partition's copy, or right after a partition was recorded done, was reached. */
    private void fireInCopy(PlannedGate g, CdcFlowWorkflow workflow) throws SQLException {
      switch (g.kind) {
        case PAUSE -> {
          signal(() -> workflow.pause(null));
          pausePending = true;
          count("fault: pause during snapshot copy", 1);
          g.gate.release();
        }
        case KILL_CONNECTIONS -> {
          int terminated = killDestinationBackends();
          count("fault: connections killed during snapshot copy", 1);
          count("destination backends terminated", terminated);
          g.gate.release();
        }
        case RESTART_POSTGRES -> {
          lane.destination.restart();
          count("fault: PostgreSQL restart during snapshot copy", 1);
          g.gate.release();
        }
        case CRASH_WORKER -> {
          // Every copy running goes down with the worker; the server retries each once its
          // heartbeat timeout passes. After a crash right after the catalog recorded the
          // partition done, the retry must answer from the catalog without reading it again.
          harness.crashWorker(this);
          count(g.point == GatePoint.RECORDED_DONE ? "fault: crash after partition recorded done"
              : "fault: crash during snapshot copy", 1);
          g.gate.release();
        }
        case HEARTBEAT_STALL -> {
          Thread thread = g.thread;
          Running attempt = thread == null ? null : running.get(thread);
          ByteString token = attempt == null ? null : tokens.get(attempt);
          if (token == null) {
            g.gate.release();
            return;
          }
          // Only this attempt's heartbeats are held; the partitions beside it go on. The copy
          // stays at the gate until its retry starts: then its next heartbeat is answered
          // NOT_FOUND, which must close its cursor, end the blocked read and roll it back.
          stuck.add(thread);
          harness.partition.hold(token);
          count("fault: heartbeat stall during snapshot copy", 1);
        }
        case SOURCE_CHANGES -> {
          int before = source.eventsApplied();
          source.advanceTo(sourceMovesTo);
          count("snapshot: changes made during the copy", source.eventsApplied() - before);
          g.gate.release();
        }
        default -> throw new IllegalStateException(g.kind.name());
      }
    }

    private void addCollection(CdcFlowWorkflow workflow) {
      addSent = true;
      signal(() -> workflow.requestEdit(Map.of("addCollections", List.of(ADDED_COLLECTION))));
    }

    /**
     * Nothing runs here: if the mirror waits on a server timer (an activity retry, a heartbeat
     * timeout of a crashed or stalled attempt, the workflow's back-off), skips the server's clock
     * to it (the test server's clock stands still while the test does not wait on it); resumes a
     * paused mirror. True if it did something.
     */
    private boolean moveServerClock(CdcFlowWorkflow workflow) {
      DescribeWorkflowExecutionResponse d = stub().describe().getRawDescription();
      if (d.getWorkflowExecutionInfo().getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        return false;
      }
      long now = harness.env.currentTimeMillis();
      if (DEBUG) {
        System.err.println("DEBUG now=" + now + " expected=" + timeoutExpected + " running=" + running.values()
            + " pending=" + d.getPendingActivitiesList());
      }
      if (d.getPendingActivitiesCount() > 0) {
        String run = d.getWorkflowExecutionInfo().getExecution().getRunId();
        for (PendingActivityInfo p : d.getPendingActivitiesList()) {
          // The test server reports an activity waiting for its retry as STARTED with the next
          // attempt's number: it waits for a retry if that attempt has not started here.
          if (p.getAttempt() > 1 && !startedHere.contains(run + "/" + p.getActivityId() + "#" + p.getAttempt())) {
            // Waiting for a retry: move the clock in steps of the shortest back-off (1 s); the
            // server stops its clock again once the retry is scheduled, so no step overshoots it.
            skip(1000, "retry backoff seconds skipped");
            return true;
          }
        }
        // A crashed attempt the server still thinks runs, or a stalled one, ends by its heartbeat
        // timeout, in real time: the test server's clock stands still while an activity is
        // outstanding (it locks time skipping from scheduling to closing the activity).
        return false;
      }
      MirrorStatus status = status(workflow);
      if (status.state() == MirrorPhase.BACKING_OFF) {
        long due = status.lastErrorAtMillis() == null ? 0
            : status.lastErrorAtMillis() + workflowBackoffMillis(status.failedAttempts());
        // In steps of at most a second: the test server's clock stands still while an activity
        // (the record of the state) or a task is outstanding, and a step taken then passes in
        // real time; the steps after it are skipped at once.
        long left = due > now ? due - now + 20 : 1000;
        skip(left, "workflow back-offs skipped");
        return true;
      }
      if (status.state() == MirrorPhase.PAUSED && !ending) {
        cancelling = false;
        String reason = status.pausedReason();
        if (reason != null && reason.startsWith("stopped before a control event")) {
          // What the operator is told to do: set the policy to IGNORE, then resume.
          signal(() -> workflow.requestEdit(Map.of("controlEventPolicy", "IGNORE")));
          restorePauseAtNextCommit = true;
          count("control event stops (PAUSE) passed by edit + resume", 1);
        }
        signal(workflow::resume);
        pausePending = false;
        return true;
      }
      return false;
    }

    /**
     * The mirror's status, asked again when a query times out ({@link #QUERY_TIMEOUT}): the test
     * server can lose a query task, and after a worker crash it sends queries to the dead worker's
     * sticky queue until a workflow task times out there.
     */
    private MirrorStatus status(CdcFlowWorkflow workflow) {
      while (true) {
        try {
          return workflow.status();
        } catch (WorkflowServiceException e) {
          if (!(e.getCause() instanceof StatusRuntimeException grpc)
              || grpc.getStatus().getCode() != Status.Code.DEADLINE_EXCEEDED || System.nanoTime() > deadline) {
            throw e;
          }
          count("status queries asked again after a lost query task", 1);
        }
      }
    }

    private void skip(long millis, String kind) {
      long began = System.nanoTime();
      harness.env.sleep(Duration.ofMillis(millis));
      long took = (System.nanoTime() - began) / 1_000_000;
      if (millis >= 1000 && took >= millis * 3 / 4) {
        // The server's clock did not jump: something held time skipping (see FaultLane#harness).
        count("clock skips that passed in real time", 1);
        if (TIMES) {
          System.out.println("seed " + seed + ": skipping " + millis + " ms (" + kind + ") took " + took + " ms");
        }
      }
      if (kind != null) {
        count(kind, 1);
      }
    }

    /** The workflow's wait after its {@code failures}-th failed batch: 30 s doubling, at most 10 min. */
    private static long workflowBackoffMillis(int failures) {
      return Math.min(600_000L, 30_000L << Math.min(Math.max(failures - 1, 0), 10));
    }

    /**
     * Sends a signal, again if it met the instant between two runs of a continue-as-new, when the
     * test server answers NOT_FOUND "Completed workflow" for the latest run.
     */
    private static void signal(Runnable send) {
      for (int i = 0; ; i++) {
        try {
          send.run();
          return;
        } catch (io.temporal.client.WorkflowNotFoundException e) {
          if (i >= 1000) {
            throw e;
          }
          LockSupport.parkNanos(Duration.ofMillis(2).toNanos());
        }
      }
    }

    private int killDestinationBackends() throws SQLException {
      try (Connection c = lane.destinationData.getConnection();
          PreparedStatement st = c.prepareStatement("select count(*) filter (where pg_terminate_backend(pid))"
              + " from pg_stat_activity where datname = ? and pid <> pg_backend_pid()"
              + " and backend_type = 'client backend'")) {
        st.setString(1, FaultLane.DESTINATION_DATABASE);
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          return rs.getInt(1);
        }
      }
    }

    void stop() {
      ending = true;
      harness.partition.heal();
      harness.partition.releaseAll();
      gates.forEach(g -> g.gate.release());
      try {
        WorkflowStub stub = stub();
        if (stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
          stub.terminate("scenario over");
        }
      } catch (RuntimeException ignored) {
        // not started, or already over
      }
      awaitNothingRunning(Duration.ofSeconds(30));
      harness.stopWorker();
    }

    /** Waits until no attempt of this scenario runs in this process (a stale one may still end). */
    private boolean awaitNothingRunning(Duration timeout) {
      long until = System.nanoTime() + timeout.toNanos();
      synchronized (running) {
        while (!running.isEmpty()) {
          long left = until - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          try {
            TimeUnit.NANOSECONDS.timedWait(running, left);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
        }
      }
      return true;
    }

    // ---- the oracle ----

    private void check() throws SQLException {
      if (!violations.isEmpty()) {
        fail("invariant violated during the run: " + violations);
      }
      ResumeToken last = workload.lastToken();
      StreamPosition position = catalog.committed(mirror.name()).orElseThrow();
      if (!(position instanceof StreamPosition.AfterToken after) || after.token().compareTo(last) < 0) {
        fail("the committed checkpoint " + position + " is before the last event " + last);
      }
      try (Connection c = lane.destinationData.getConnection()) {
        if (!snapshots) {
          checkTable(c, RandomWorkload.ORDERS, workload.stateAt(null));
        } else {
          // Per collection copied: the documents from before its snapshot's start, at the start's
          // position, and every change after it.
          if (!snapshotStarts.containsKey(RandomWorkload.ORDERS)) {
            fail("the snapshot of " + RandomWorkload.ORDERS + " was never planned");
          }
          if (added != snapshotStarts.containsKey(ADDED_COLLECTION)) {
            fail("a batch watched " + ADDED_COLLECTION + ": " + added + ", its snapshot was planned: "
                + snapshotStarts.containsKey(ADDED_COLLECTION));
          }
          for (Map.Entry<String, ResumeToken> start : new java.util.TreeMap<>(snapshotStarts).entrySet()) {
            checkTable(c, start.getKey(), workload.expectedRows(start.getKey(), start.getValue()));
          }
        }
        if (history) {
          checkHistory(c);
        }
        // Per _id, applied positions never went backwards (the trigger saw every update).
        try (PreparedStatement st = c.prepareStatement("select id, old_position, new_position"
            + " from public.faults_backwards where schema_name = ?")) {
          st.setString(1, mirror.destinationSchema());
          try (ResultSet rs = st.executeQuery()) {
            if (rs.next()) {
              fail("row " + rs.getString(1) + " moved back from position " + rs.getString(2) + " to "
                  + rs.getString(3));
            }
          }
        }
      }
      if (!awaitNothingRunning(Duration.ofSeconds(30))) {
        fail("activity attempts still running after the workflow ended: " + running.values());
      }
      String prefix = "mongo-cdc-" + mirror.name() + "-";
      List<String> threads = Thread.getAllStackTraces().keySet().stream()
          .filter(Thread::isAlive).map(Thread::getName).filter(n -> n.startsWith(prefix)).sorted().toList();
      if (!threads.isEmpty()) {
        fail("pipeline threads left alive: " + threads);
      }
      if (snapshots && source.openCursors() != 0) {
        fail(source.openCursors() + " snapshot cursors left open");
      }
    }

    /**
     * The history table of orders holds exactly one row per event of the workload, whatever the
     * faults replayed: its position, key and whether it is a delete; and every state row has the
     * history row of its position.
     */
    private void checkHistory(Connection c) throws SQLException {
      String historyTable = TableNaming.qualified(mirror.destinationSchema(),
          TableNaming.historyTableName(TableNaming.tableName(RandomWorkload.NS)));
      Map<String, RandomWorkload.Applied> expected = new HashMap<>();
      for (RandomWorkload.Applied a : workload.applied) {
        expected.put(a.token().data(), a);
      }
      int rows = 0;
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
          "select \"_position\", \"_id\", \"_operation\" from " + historyTable)) {
        while (rs.next()) {
          rows++;
          RandomWorkload.Applied want = expected.get(rs.getString(1));
          if (want == null) {
            fail("history row at " + rs.getString(1) + " of " + rs.getString(2) + " is no event of the source");
          }
          if (!want.key().equals(rs.getString(2)) || want.delete() != rs.getString(3).equals("delete")) {
            fail("history row at " + rs.getString(1) + " is " + rs.getString(3) + " of " + rs.getString(2)
                + ", the event is " + (want.delete() ? "a delete" : "a write") + " of " + want.key());
          }
        }
      }
      if (rows != expected.size()) {
        fail("the history has " + rows + " rows, the source " + expected.size() + " events");
      }
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select count(*) from " + table
          + " s where not exists (select 1 from " + historyTable + " h where h.\"_position\" = s.\"_position\""
          + " and h.\"_id\" = s.\"_id\")")) {
        rs.next();
        if (rs.getLong(1) != 0) {
          fail(rs.getLong(1) + " state rows have no history row of their position");
        }
      }
      count("history checks", 1);
    }

    /**
     * The destination table of {@code collection} holds exactly the {@code expected} rows: per key
     * the position, whether it is deleted, and the document.
     */
    private void checkTable(Connection c, String collection, Map<String, RandomWorkload.KeyState> expected)
        throws SQLException {
      String table = tableOf(collection);
      TranscodingJsonRenderer documents = TranscodingJsonRenderer.relaxed();
      String of = collection.equals(RandomWorkload.ORDERS) ? "" : " of " + collection;
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select count(*) from " + table)) {
        rs.next();
        if (rs.getInt(1) != expected.size()) {
          fail("the destination" + of + " has " + rs.getInt(1) + " rows, the source" + of + " has " + expected.size()
              + (snapshots ? " keys (copied or written after the copy's start)" : " touched keys"));
        }
      }
      try (PreparedStatement st = c.prepareStatement(
          "select doc = ?::jsonb, \"_position\", \"_deleted\", doc::text from " + table + " where \"_id\" = ?")) {
        for (Map.Entry<String, RandomWorkload.KeyState> e : expected.entrySet()) {
          RandomWorkload.KeyState want = e.getValue();
          st.setString(1, want.document() == null ? "null" : documents.render(want.document()));
          st.setString(2, e.getKey());
          try (ResultSet rs = st.executeQuery()) {
            if (!rs.next()) {
              if (!snapshots && want.deleted() && want.document() == null) {
                continue;
              }
              fail("row " + e.getKey() + of + " is missing");
            }
            if (!rs.getString(2).equals(want.token().data())) {
              fail("row " + e.getKey() + of + " has position " + rs.getString(2) + ", its last event is "
                  + want.token().data());
            }
            if (rs.getBoolean(3) != want.deleted()) {
              fail("row " + e.getKey() + of + " deleted=" + rs.getBoolean(3) + ", the source says " + want.deleted());
            }
            if (!want.deleted() && !rs.getBoolean(1)) {
              fail("row " + e.getKey() + of + " is " + rs.getString(4) + ", the source has "
                  + documents.render(want.document()));
            }
          }
        }
      }
    }

    /**
     * At a catalog commit: every event the checkpoint covers is in the destination. With
     * snapshots, per collection copied, the events after its snapshot's start (the copy holds
     * those before it).
     */
    private void checkDeliveredPrefix(StreamPosition checkpoint) {
      if (!(checkpoint instanceof StreamPosition.AfterToken after)) {
        return;
      }
      if (!snapshots) {
        if (checkDeliveredPrefix(RandomWorkload.ORDERS, workload.stateAt(after.token()), after.token())) {
          count("prefix checks at commit", 1);
        }
        return;
      }
      for (Map.Entry<String, ResumeToken> start : snapshotStarts.entrySet()) {
        if (!checkDeliveredPrefix(start.getKey(), workload.stateAt(start.getKey(), after.token(), start.getValue()),
            after.token())) {
          return;
        }
      }
      count("prefix checks at commit", 1);
    }

    private boolean checkDeliveredPrefix(String collection, Map<String, RandomWorkload.KeyState> expected,
        ResumeToken checkpoint) {
      Map<String, String> rows = new HashMap<>();
      try (Connection c = lane.destinationData.getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("select \"_id\", \"_position\" from " + tableOf(collection))) {
        while (rs.next()) {
          rows.put(rs.getString(1), rs.getString(2));
        }
      } catch (SQLException e) {
        violations.add("cannot read the destination: " + e.getMessage());
        return false;
      }
      for (Map.Entry<String, RandomWorkload.KeyState> e : expected.entrySet()) {
        String at = rows.get(e.getKey());
        if (at == null || ResumeToken.of(at).compareTo(e.getValue().token()) < 0) {
          violations.add("checkpoint " + checkpoint + " covers event " + e.getValue().token() + " of key "
              + e.getKey() + (collection.equals(RandomWorkload.ORDERS) ? "" : " of " + collection)
              + " but the destination has " + at);
          return false;
        }
      }
      return true;
    }

    // ---- ports with faults ----

    final class FaultyCatalog implements CheckpointCatalog {
      @Override
      public Optional<StreamPosition> register(MirrorConfig m) {
        return catalog.register(m);
      }

      @Override
      public boolean recordState(MirrorStateChange change) {
        return catalog.recordState(change);
      }

      @Override
      public long committedBatchId(String m) {
        return catalog.committedBatchId(m);
      }

      @Override
      public void setAside(String m, long batchId, io.mongocdc.pipeline.PoisonEvent event) {
        catalog.setAside(m, batchId, event);
      }

      @Override
      public List<io.mongocdc.ports.QuarantinedEvent> quarantined(String m) {
        return catalog.quarantined(m);
      }

      @Override
      public void markReplayed(List<Long> ids) {
        catalog.markReplayed(ids);
      }

      @Override
      public void refusedAgain(long id, String reason) {
        catalog.refusedAgain(id, reason);
      }

      @Override
      public Optional<MirrorConfig> registered(String m) {
        return catalog.registered(m);
      }

      @Override
      public void recordFailedAttempt(String m, long batchId, int attempt, String failureType, String message) {
        catalog.recordFailedAttempt(m, batchId, attempt, failureType, message);
      }

      @Override
      public CheckpointCommit commit(String m, long batchId, StreamPosition checkpoint, BatchFigures figures) {
        int n = catalogCommits.incrementAndGet();
        if (DEBUG) {
          System.err.println("DEBUG commit " + batchId + " " + figures);
        }
        checkDeliveredPrefix(checkpoint);
        if (n == catalogFailAt && !catalogFailAfterCommit) {
          count("fault: catalog commit fails before storing", 1);
          throw new IllegalStateException("injected: the catalog connection was lost");
        }
        CheckpointCommit result = catalog.commit(m, batchId, checkpoint, figures);
        if (result.stored() instanceof StreamPosition.AfterToken after) {
          ResumeToken previous = stored;
          if (previous != null && after.token().compareTo(previous) < 0) {
            violations.add("the stored checkpoint moved back from " + previous + " to " + after.token());
          }
          stored = after.token();
        }
        if (n == catalogFailAt) {
          count("fault: catalog commit fails after storing", 1);
          throw new IllegalStateException("injected: the catalog committed, then its reply was lost");
        }
        if (!ending) {
          signalsAtCommit(m, n);
        }
        return result;
      }

      private void signalsAtCommit(String m, int n) {
        CdcFlowWorkflow workflow = harness.client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(m));
        if (restorePauseAtNextCommit) {
          restorePauseAtNextCommit = false;
          signal(() -> workflow.requestEdit(Map.of("controlEventPolicy", "PAUSE")));
        }
        Map<String, Object> edit = editsAt.remove(n);
        if (edit != null) {
          signal(() -> workflow.requestEdit(edit));
          count("fault: edit signal", 1);
        }
        if (n == addAt && !addSent) {
          addCollection(workflow);
        }
        List<Object> storm = stormsAt.remove(n);
        if (storm != null) {
          count("fault: signal storm", 1);
          for (Object s : storm) {
            if ("pause".equals(s)) {
              signal(() -> workflow.pause(null));
              pausePending = true;
            } else if ("resume".equals(s)) {
              signal(workflow::resume);
              pausePending = false;
            } else {
              @SuppressWarnings("unchecked")
              Map<String, Object> e = (Map<String, Object>) s;
              signal(() -> workflow.requestEdit(e));
            }
            count("storm signals (pause, resume, edit)", 1);
          }
        }
      }

      @Override
      public Optional<StreamPosition> committed(String m) {
        return catalog.committed(m);
      }

      @Override
      public void forget(String m) {
        catalog.forget(m);
      }
    }

    /**
     * The real snapshot catalog (one for the test JVM, each scenario under its own mirror name),
     * with faults when a partition is recorded done: the record fails before or after it is stored
     * (reply lost), or the worker crashes right after it is stored. It also tells the oracle which
     * partitions are done, and since when.
     */
    final class FaultySnapshotCatalog implements SnapshotCatalog {
      @Override
      public Optional<SnapshotPlan> plan(String m, String collection, StreamPosition start) {
        return snapshotCatalog.plan(m, collection, start);
      }

      @Override
      public SnapshotPlan storePlan(String m, String collection, StreamPosition start, String filter,
          long estimatedDocuments, List<String> idRanges) {
        return snapshotCatalog.storePlan(m, collection, start, filter, estimatedDocuments, idRanges);
      }

      @Override
      public PlannedPartition partition(String m, String collection, int partition) {
        return snapshotCatalog.partition(m, collection, partition);
      }

      @Override
      public void partitionStarted(String m, String collection, int partition) {
        snapshotCatalog.partitionStarted(m, collection, partition);
      }

      @Override
      public void partitionDone(String m, String collection, int partition, long documents, long bytes) {
        int n = partitionsRecorded.incrementAndGet();
        if (n == doneFailAt && !doneFailAfterStoring) {
          count("fault: partition done fails before storing", 1);
          throw new IllegalStateException("injected: the catalog connection was lost");
        }
        snapshotCatalog.partitionDone(m, collection, partition, documents, bytes);
        // Attempts that start from now on find the partition done.
        long startedBefore = attemptSequence.get();
        String range = IdRange.fromJson(snapshotCatalog.partition(m, collection, partition).idRange()).toJson();
        recordedDone.putIfAbsent(collection + " " + range, startedBefore);
        if (n == doneFailAt) {
          count("fault: partition done fails after storing", 1);
          throw new IllegalStateException("injected: the catalog stored the partition, then its reply was lost");
        }
        for (PlannedGate g : gates) {
          if (g.point == GatePoint.RECORDED_DONE && g.open == n) {
            // The worker dies here, between the catalog's record and the report to Temporal.
            g.thread = Thread.currentThread();
            try {
              g.gate.pass();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new IllegalStateException("the worker stopped after the partition was recorded done", e);
            }
          }
        }
      }
    }

    final class FaultyDestination implements MirrorDestination {
      private final MirrorDestination real;

      FaultyDestination(MirrorDestination real) {
        this.real = real;
      }

      @Override
      public void validate(MirrorConfig m) {
        real.validate(m);
      }

      /** Creates the tables, then the oracle's trigger on each destination table. */
      @Override
      public List<String> createTables(MirrorConfig m) {
        List<String> tables = real.createTables(m);
        try (Connection c = lane.destinationData.getConnection(); Statement st = c.createStatement()) {
          for (String collection : m.collections()) {
            st.execute("create or replace trigger faults_backwards before update on " + tableOf(collection)
                + " for each row execute function public.faults_backwards()");
          }
        } catch (SQLException e) {
          throw new IllegalStateException("cannot install the oracle's trigger", e);
        }
        return tables;
      }

      @Override
      public DestinationTableResolver tableResolver(MirrorConfig m) {
        return real.tableResolver(m);
      }

      @Override
      public int applyLanes(MirrorConfig m) {
        return real.applyLanes(m);
      }

      @Override
      public BatchSink openSink(MirrorConfig m, long batchId) {
        // Opened on the activity's thread: which attempt of which batch this sink writes for.
        int attempt = Activity.getExecutionContext().getInfo().getAttempt();
        BatchSink sink = real.openSink(m, batchId);
        return new BatchSink() {
          private boolean stale() {
            return latestPullAttempt.getOrDefault(batchId, attempt) > attempt;
          }

          @Override
          public void write(List<ChangeRecord> records) throws Exception {
            if (sinkWrites.incrementAndGet() == sinkWriteFailAt) {
              count("fault: sink write fails", 1);
              throw new SQLException("injected: I/O error while writing to the destination", "08006");
            }
            if (stale()) {
              count("writes by a stale attempt after its retry started", 1);
            }
            sink.write(records);
          }

          @Override
          public void commit() throws Exception {
            if (sinkCommits.incrementAndGet() == sinkCommitFailAt) {
              count("fault: sink commit fails", 1);
              throw new SQLException("injected: connection lost during commit", "08006");
            }
            if (stale()) {
              count("commits by a stale attempt after its retry started", 1);
            }
            sink.commit();
          }

          @Override
          public long historyRowsCommitted() {
            return sink.historyRowsCommitted();
          }

          @Override
          public void abort(Throwable cause) {
            sink.abort(cause);
          }

          @Override
          public void close() {
            sink.close();
          }
        };
      }

      @Override
      public List<MirrorTable> plannedTables(MirrorConfig m) {
        return real.plannedTables(m);
      }

      @Override
      public List<String> recordedCollections(MirrorConfig m) {
        return real.recordedCollections(m);
      }

      @Override
      public void checkReachable(String destinationPeer) {
        real.checkReachable(destinationPeer);
      }

      @Override
      public void dropTables(List<MirrorTable> tables) {
        real.dropTables(tables);
      }
    }
  }
}
