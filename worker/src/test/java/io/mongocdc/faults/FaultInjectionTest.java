package io.mongocdc.faults;

import io.mongocdc.workflows.model.SnapshotSettings;
import static org.junit.jupiter.api.Assertions.fail;

import io.mongocdc.activities.BatchSink;
import io.mongocdc.activities.CheckpointCatalog;
import io.mongocdc.activities.Checkpoints;
import io.mongocdc.activities.CommitCheckpointActivity;
import io.mongocdc.activities.CommitCheckpointActivityImpl;
import io.mongocdc.activities.ConfiguredPeerRegistry;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.MirrorDestination;
import io.mongocdc.activities.PeerRegistry;
import io.mongocdc.activities.PullRecordsActivity;
import io.mongocdc.activities.PullRecordsActivityImpl;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.activities.ScriptedSource;
import io.mongocdc.activities.SetupMirrorActivity;
import io.mongocdc.activities.SetupMirrorActivityImpl;
import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.CatalogMigrator;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.destination.PostgresMirrorDestination;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.source.ChangeStreamException;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.Gate;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.CdcFlowWorkflowImpl;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.CommitCheckpointRequest;
import io.mongocdc.workflows.model.CommitResult;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.PullRecordsRequest;
import io.temporal.activity.Activity;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerOptions;
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
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
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
 * <p>{@code -Dseed=N} reruns one scenario; {@code -Dfaults.soak=N} runs seeds 1..N (default 60, so
 * the normal build stays short; 200 and more as a soak).
 */
class FaultInjectionTest {

  private static final int DEFAULT_SCENARIOS = 60;
  private static final int SCENARIOS_PER_ENVIRONMENT = 50;
  private static final Duration SCENARIO_TIMEOUT = Duration.ofSeconds(20);
  private static final String SOURCE_PEER = "orders-mongo";
  private static final String DESTINATION_PEER = "faults-pg";

  private static final FaultCounters COUNTERS = new FaultCounters();
  private static final AtomicInteger MIRRORS = new AtomicInteger();
  private static final long STARTED = System.nanoTime();

  private static String destinationDatabase;
  private static DataSource destinationData;
  private static PostgresCheckpointCatalog catalog;
  private static PeerRegistry peers;
  private static Harness harness;
  private static int scenariosInHarness;

  @TestFactory
  Stream<DynamicTest> scenarios() {
    String only = System.getProperty("seed");
    LongStream seeds = only != null && !only.isBlank()
        ? LongStream.of(Long.parseLong(only.trim()))
        : LongStream.rangeClosed(1, Long.getLong("faults.soak", DEFAULT_SCENARIOS));
    return seeds.mapToObj(seed -> DynamicTest.dynamicTest("seed " + seed, () -> runScenario(seed)));
  }

  @AfterAll
  static void report() {
    if (harness != null) {
      harness.close();
      harness = null;
    }
    System.out.printf("fault suite: %d scenarios in %.1f s%n%s", COUNTERS.get("scenarios"),
        (System.nanoTime() - STARTED) / 1e9, COUNTERS);
  }

  private static synchronized void shared() throws SQLException {
    if (catalog != null) {
      return;
    }
    DataSource catalogData = EmbeddedPostgresSupport.newDatabase("faults_catalog");
    CatalogMigrator.migrate(catalogData);
    catalog = new PostgresCheckpointCatalog(Catalog.open(catalogData));
    destinationData = EmbeddedPostgresSupport.newDatabase("faults_dest");
    try (Connection c = destinationData.getConnection()) {
      destinationDatabase = c.getCatalog();
    }
    String url = EmbeddedPostgresSupport.postgres().getJdbcUrl("postgres", destinationDatabase);
    peers = new ConfiguredPeerRegistry(Map.of(SOURCE_PEER, Fixtures.SOURCE_URI, DESTINATION_PEER, url), Map.of());
  }

  private static Harness harness() {
    if (harness == null || scenariosInHarness >= SCENARIOS_PER_ENVIRONMENT) {
      if (harness != null) {
        harness.close();
      }
      harness = new Harness();
      scenariosInHarness = 0;
    }
    scenariosInHarness++;
    return harness;
  }

  private static void runScenario(long seed) throws Exception {
    shared();
    Harness env = harness();
    Scenario scenario = new Scenario(seed, "flt" + MIRRORS.incrementAndGet(), env);
    env.scenarios.put(scenario.mirror.name(), scenario);
    try {
      scenario.run();
      COUNTERS.increment("scenarios");
      COUNTERS.add("events checked", scenario.workload.events.size());
      scenario.counted.forEach(COUNTERS::add);
    } catch (Throwable t) {
      AssertionError failure = new AssertionError("seed=" + seed + " (rerun alone with -Dseed=" + seed + "): "
          + t.getMessage() + "\n" + scenario.describe(), t);
      throw failure;
    } finally {
      scenario.stop();
      env.scenarios.remove(scenario.mirror.name());
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** A test server and one worker whose activities route to the scenario of the mirror named. */
  static final class Harness implements AutoCloseable {
    final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance(TestEnvironmentOptions.newBuilder()
        .setWorkflowClientOptions(WorkflowClientOptions.newBuilder().setIdentity("mongo-cdc-faults").build())
        .build());
    final WorkflowClient client = env.getWorkflowClient();
    final Map<String, Scenario> scenarios = new ConcurrentHashMap<>();

    Harness() {
      Worker worker = env.newWorker(MirrorIds.DEFAULT_TASK_QUEUE,
          WorkerOptions.newBuilder().setMaxHeartbeatThrottleInterval(Duration.ofMillis(50)).build());
      worker.registerWorkflowImplementationTypes(CdcFlowWorkflowImpl.class);
      worker.registerActivitiesImplementations(new RoutedSetup(), new RoutedPull(), new RoutedCommit());
      env.start();
    }

    Scenario of(String mirror) {
      Scenario s = scenarios.get(mirror);
      if (s == null) {
        throw new IllegalStateException("no scenario for mirror " + mirror);
      }
      return s;
    }

    final class RoutedSetup implements SetupMirrorActivity {
      @Override
      public void validateMirror(MirrorConfig mirror) {
        of(mirror.name()).setup.validateMirror(mirror);
      }

      @Override
      public List<String> createDestinationTables(MirrorConfig mirror) {
        return of(mirror.name()).setup.createDestinationTables(mirror);
      }

      @Override
      public Checkpoint registerMirror(MirrorConfig mirror) {
        return of(mirror.name()).setup.registerMirror(mirror);
      }

      @Override
      public Checkpoint takeStartingPoint(MirrorConfig mirror) {
        return of(mirror.name()).setup.takeStartingPoint(mirror);
      }
    }

    final class RoutedPull implements PullRecordsActivity {
      @Override
      public BatchOutcome pullRecords(PullRecordsRequest request) {
        Scenario s = of(request.mirror().name());
        return s.attempt(() -> s.pull.pullRecords(request));
      }
    }

    final class RoutedCommit implements CommitCheckpointActivity {
      @Override
      public CommitResult commitCheckpoint(CommitCheckpointRequest request) {
        Scenario s = of(request.mirror());
        return s.attempt(() -> s.commit.commitCheckpoint(request));
      }
    }

    @Override
    public void close() {
      env.close();
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** One seed: workload, fault plan, ports with faults, the driver and the oracle. */
  static final class Scenario {
    final long seed;
    final Random random;
    final Harness harness;
    final MirrorConfig mirror;
    final RandomWorkload workload;
    final String table;
    final Map<String, Long> counted = new LinkedHashMap<>();
    final List<String> plan = new ArrayList<>();
    final List<String> violations = new CopyOnWriteArrayList<>();

    final SetupMirrorActivity setup;
    final PullRecordsActivity pull;
    final CommitCheckpointActivity commit;

    // fault plan
    Gate killGate;
    int killAt = -1;
    int sinkWriteFailAt = -1;
    int sinkCommitFailAt = -1;
    int catalogFailAt = -1;
    boolean catalogFailAfterCommit;
    int pauseAt = -1;
    final Map<Integer, Map<String, Object>> editsAt = new HashMap<>();

    // observations
    final AtomicInteger sinkWrites = new AtomicInteger();
    final AtomicInteger sinkCommits = new AtomicInteger();
    final AtomicInteger catalogCommits = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    volatile Duration pendingBackoff;
    volatile boolean pausePending;
    volatile boolean ending;
    volatile ResumeToken stored;
    final AtomicBoolean killed = new AtomicBoolean();

    Scenario(long seed, String name, Harness harness) {
      this.seed = seed;
      this.random = new Random(seed);
      this.harness = harness;
      int events = 30 + random.nextInt(121);
      this.workload = new RandomWorkload(random, events);
      MirrorSettings settings = new MirrorSettings(5 + random.nextInt(36), 2, 600, 1 + random.nextInt(4),
          1 + random.nextInt(10), List.of(), "PAUSE", 1 + random.nextInt(5), false, SnapshotSettings.off());
      this.mirror = new MirrorConfig(name, SOURCE_PEER, DESTINATION_PEER, "shop", List.of("orders"), name, settings);
      this.table = TableNaming.qualified(name, TableNaming.tableName(RandomWorkload.NS));
      plan.add("events=" + events + " transactions=" + workload.transactions + " idleGaps=" + workload.idleGaps
          + " settings=" + settings);
      count("transactions", workload.transactions);
      count("idle gaps", workload.idleGaps);
      planFaults(events);

      MirrorDestination destination = new FaultyDestination(
          new PostgresMirrorDestination(peers, PostgresSinkOptions.defaults()));
      CheckpointCatalog faultyCatalog = new FaultyCatalog();
      ScriptedSource source = new ScriptedSource(workload.stream, Fixtures.BEFORE_EVENTS, peers);
      PullTuning tuning = new PullTuning(Duration.ofMillis(20), 3 + random.nextInt(18), Duration.ofSeconds(10));
      plan.add("commitIntervalRecords=" + tuning.commitIntervalRecords());
      this.setup = new SetupMirrorActivityImpl(peers, source, destination, faultyCatalog);
      this.pull = new PullRecordsActivityImpl(source, destination, tuning, workload.clock);
      this.commit = new CommitCheckpointActivityImpl(faultyCatalog);
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
      if (random.nextInt(3) == 0) {
        killAt = indexes.get(next++);
        killGate = workload.stream.blockAt(killAt);
        plan.add("destination connection killed at event " + killAt);
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
      if (random.nextInt(3) == 0) {
        pauseAt = 1 + random.nextInt(5);
        plan.add("pause/resume at commit " + pauseAt);
      }
      int edits = random.nextInt(3);
      for (int i = 0; i < edits; i++) {
        int at = 1 + random.nextInt(6);
        Map<String, Object> edit = new LinkedHashMap<>();
        edit.put("batchSize", 3 + random.nextInt(40));
        edit.put("chunkSize", 1 + random.nextInt(12));
        if (random.nextBoolean()) {
          edit.put("decodeWorkers", 1 + random.nextInt(4));
        }
        editsAt.put(at, edit);
        plan.add("edit " + edit + " at commit " + at);
      }
    }

    String describe() {
      return "  plan: " + String.join("; ", plan) + "\n  violations: " + violations;
    }

    /** Runs an activity attempt; a failure tells the driver to skip the retry's backoff. */
    <T> T attempt(java.util.function.Supplier<T> call) {
      inFlight.incrementAndGet();
      try {
        return call.get();
      } catch (RuntimeException e) {
        int attempt = Activity.getExecutionContext().getInfo().getAttempt();
        pendingBackoff = Duration.ofSeconds(Math.min(30, 1L << Math.min(attempt - 1, 5)));
        count("activity attempts failed", 1);
        throw e;
      } finally {
        inFlight.decrementAndGet();
      }
    }

    // ---- the driver ----

    void run() throws Exception {
      CdcFlowWorkflow starter = harness.client.newWorkflowStub(CdcFlowWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId(MirrorIds.workflowId(mirror.name()))
          .setTaskQueue(MirrorIds.DEFAULT_TASK_QUEUE)
          .build());
      WorkflowClient.start(starter::run, CdcFlowInput.newMirror(mirror));
      CdcFlowWorkflow workflow = harness.client.newWorkflowStub(CdcFlowWorkflow.class,
          MirrorIds.workflowId(mirror.name()));
      ResumeToken last = workload.lastToken();
      long deadline = System.nanoTime() + SCENARIO_TIMEOUT.toNanos();
      while (stored == null || stored.compareTo(last) < 0 || pausePending) {
        pump(workflow, deadline, "the committed checkpoint to reach the last event");
      }
      ending = true;
      signal(() -> workflow.terminate(null));
      WorkflowStub stub = harness.client.newUntypedWorkflowStub(MirrorIds.workflowId(mirror.name()));
      while (stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        pump(workflow, deadline, "the workflow to terminate");
      }
      MirrorStatus status = stub.getResult(MirrorStatus.class);
      if (status.state() != MirrorPhase.TERMINATED) {
        fail("the mirror ended " + status.state());
      }
      check();
    }

    private void pump(CdcFlowWorkflow workflow, long deadline, String waitingFor) throws SQLException {
      if (System.nanoTime() > deadline) {
        MirrorStatus status = workflow.status();
        fail("timed out waiting for " + waitingFor + "; stored=" + stored + " last=" + workload.lastToken()
            + " status=" + status);
      }
      if (killGate != null && killGate.isReached() && killed.compareAndSet(false, true)) {
        int terminated = killDestinationBackends();
        count("fault: destination connection killed", 1);
        count("destination backends terminated", terminated);
        killGate.release();
      }
      Duration backoff = pendingBackoff;
      if (backoff != null && inFlight.get() == 0) {
        pendingBackoff = null;
        // The test server's clock is locked while the test does not wait on it: skip the retry delay.
        harness.env.sleep(backoff.plusMillis(100));
        count("retry backoffs skipped", 1);
        return;
      }
      if (pausePending && !ending) {
        MirrorStatus status = workflow.status();
        if (status.state() == MirrorPhase.PAUSED) {
          signal(workflow::resume);
          pausePending = false;
        }
      }
      LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
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
      try (Connection c = destinationData.getConnection();
          PreparedStatement st = c.prepareStatement("select count(*) filter (where pg_terminate_backend(pid))"
              + " from pg_stat_activity where datname = ? and pid <> pg_backend_pid()"
              + " and backend_type = 'client backend'")) {
        st.setString(1, destinationDatabase);
        try (ResultSet rs = st.executeQuery()) {
          rs.next();
          return rs.getInt(1);
        }
      }
    }

    void stop() {
      ending = true;
      if (killGate != null) {
        killGate.release();
      }
      try {
        WorkflowStub stub = harness.client.newUntypedWorkflowStub(MirrorIds.workflowId(mirror.name()));
        if (stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
          stub.terminate("scenario over");
        }
      } catch (RuntimeException ignored) {
        // not started, or already over
      }
    }

    // ---- the oracle ----

    private void check() throws SQLException {
      if (!violations.isEmpty()) {
        fail("invariant violated during the run: " + violations);
      }
      ResumeToken last = workload.lastToken();
      Optional<Checkpoint> committed = catalog.committed(mirror.name());
      StreamPosition position = Checkpoints.toPosition(committed.orElseThrow());
      if (!(position instanceof StreamPosition.AfterToken after) || after.token().compareTo(last) < 0) {
        fail("the committed checkpoint " + position + " is before the last event " + last);
      }
      Map<String, RandomWorkload.KeyState> expected = workload.stateAt(null);
      TranscodingJsonRenderer documents = TranscodingJsonRenderer.relaxed();
      try (Connection c = destinationData.getConnection()) {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select count(*) from " + table)) {
          rs.next();
          if (rs.getInt(1) != expected.size()) {
            fail("the destination has " + rs.getInt(1) + " rows, the source touched " + expected.size() + " keys");
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
                if (want.deleted() && want.document() == null) {
                  continue;
                }
                fail("row " + e.getKey() + " is missing");
              }
              if (!rs.getString(2).equals(want.token().data())) {
                fail("row " + e.getKey() + " has position " + rs.getString(2) + ", its last event is "
                    + want.token().data());
              }
              if (rs.getBoolean(3) != want.deleted()) {
                fail("row " + e.getKey() + " deleted=" + rs.getBoolean(3) + ", the source says " + want.deleted());
              }
              if (!want.deleted() && !rs.getBoolean(1)) {
                fail("row " + e.getKey() + " is " + rs.getString(4) + ", the source has "
                    + documents.render(want.document()));
              }
            }
          }
        }
      }
      String prefix = "mongo-cdc-" + mirror.name() + "-";
      List<String> threads = Thread.getAllStackTraces().keySet().stream()
          .filter(Thread::isAlive).map(Thread::getName).filter(n -> n.startsWith(prefix)).sorted().toList();
      if (!threads.isEmpty()) {
        fail("pipeline threads left alive: " + threads);
      }
    }

    /** At a catalog commit: every event the checkpoint covers is in the destination. */
    private void checkDeliveredPrefix(Checkpoint checkpoint) {
      if (!(Checkpoints.toPosition(checkpoint) instanceof StreamPosition.AfterToken after)) {
        return;
      }
      Map<String, RandomWorkload.KeyState> expected = workload.stateAt(after.token());
      Map<String, String> rows = new HashMap<>();
      try (Connection c = destinationData.getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("select \"_id\", \"_position\" from " + table)) {
        while (rs.next()) {
          rows.put(rs.getString(1), rs.getString(2));
        }
      } catch (SQLException e) {
        violations.add("cannot read the destination: " + e.getMessage());
        return;
      }
      for (Map.Entry<String, RandomWorkload.KeyState> e : expected.entrySet()) {
        String at = rows.get(e.getKey());
        if (at == null || ResumeToken.of(at).compareTo(e.getValue().token()) < 0) {
          violations.add("checkpoint " + after.token() + " covers event " + e.getValue().token() + " of key "
              + e.getKey() + " but the destination has " + at);
          return;
        }
      }
      count("prefix checks at commit", 1);
    }

    // ---- ports with faults ----

    final class FaultyCatalog implements CheckpointCatalog {
      @Override
      public Optional<Checkpoint> register(MirrorConfig m) {
        return catalog.register(m);
      }

      @Override
      public CommitResult commit(String m, long batchId, Checkpoint checkpoint, BatchFigures figures) {
        int n = catalogCommits.incrementAndGet();
        checkDeliveredPrefix(checkpoint);
        if (n == catalogFailAt && !catalogFailAfterCommit) {
          count("fault: catalog commit fails before storing", 1);
          throw new IllegalStateException("injected: the catalog connection was lost");
        }
        CommitResult result = catalog.commit(m, batchId, checkpoint, figures);
        if (Checkpoints.toPosition(result.stored()) instanceof StreamPosition.AfterToken after) {
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
          Map<String, Object> edit = editsAt.remove(n);
          CdcFlowWorkflow workflow = harness.client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(m));
          if (edit != null) {
            signal(() -> workflow.requestEdit(edit));
            count("fault: edit signal", 1);
          }
          if (n == pauseAt) {
            signal(() -> workflow.pause(null));
            pausePending = true;
            count("fault: pause and resume", 1);
          }
        }
        return result;
      }

      @Override
      public Optional<Checkpoint> committed(String m) {
        return catalog.committed(m);
      }

      @Override
      public void forget(String m) {
        catalog.forget(m);
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

      @Override
      public List<String> createTables(MirrorConfig m) {
        return real.createTables(m);
      }

      @Override
      public DestinationTableResolver tableResolver(MirrorConfig m) {
        return real.tableResolver(m);
      }

      @Override
      public BatchSink openSink(MirrorConfig m, long batchId) {
        BatchSink sink = real.openSink(m, batchId);
        return new BatchSink() {
          @Override
          public void write(List<ChangeRecord> records) throws Exception {
            if (sinkWrites.incrementAndGet() == sinkWriteFailAt) {
              count("fault: sink write fails", 1);
              throw new SQLException("injected: I/O error while writing to the destination", "08006");
            }
            sink.write(records);
          }

          @Override
          public void commit() throws Exception {
            if (sinkCommits.incrementAndGet() == sinkCommitFailAt) {
              count("fault: sink commit fails", 1);
              throw new SQLException("injected: connection lost during commit", "08006");
            }
            sink.commit();
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
      public void dropTables(MirrorConfig m) {
        real.dropTables(m);
      }
    }
  }
}
