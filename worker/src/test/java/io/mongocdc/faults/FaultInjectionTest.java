package io.mongocdc.faults;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Model-based randomized fault injection: each scenario (one seed) plays a random workload
 * through the mirror workflow with the real activities, the real PostgreSQL destination and
 * catalog, and random faults; the destination, the catalog and the threads are then checked
 * against a model of the source. See {@code docs/reliability.md}.
 *
 * <p>A {@link Scenario} is one seed's workload, mirror and {@link FaultPlan}; the
 * {@link ScenarioDriver} plays it on a lane's {@link FaultHarness} (test server and worker) through
 * ports with faults; the {@link FaultOracle} checks it. This class runs the seeds in lanes and
 * reports.
 *
 * <p>Every {@link FaultOptions#SNAPSHOT_EVERY}-th seed runs with snapshots on: its collections hold
 * documents before the mirror starts, the mirror copies them in small partitions while the source
 * changes, and faults hit the copy (worker crash, heartbeat stall, PostgreSQL restart, killed
 * connections, a pause, a partition that fails until its retries are spent, a catalog that fails
 * recording a finished partition, a crash right after it recorded one); half of them add a
 * collection to the running mirror.
 *
 * <p>The normal build runs seeds 1..200 in {@link #LANES} lanes side by side. {@code -Dseed=N} reruns
 * one scenario alone, {@code -Dseed=N,M,...} those scenarios side by side; {@code -Dfaults.soak=N}
 * runs seeds 1..N; {@code -Dfaults.lanes=N} sets the lanes; {@code -Dfaults.snapshotEvery=N} runs
 * every N-th seed with snapshots (1: all, 0: none), {@code -Dfaults.snapshotSeedsOnly} only those;
 * {@code -Dfaults.fieldRulesEvery=N} runs every seed whose remainder by N is 2 with field rules (0: none);
 * {@code -Dfaults.times} prints each scenario's time; {@code -Dfaults.noCrash},
 * {@code -Dfaults.noHeartbeat} and {@code -Dfaults.noCancel} leave a fault kind out;
 * {@code -Dfaults.debug} prints the driver's looks and, on failure, the workflow's histories.
 */
class FaultInjectionTest {

  private static final int DEFAULT_SCENARIOS = 200;
  /**
   * Scenarios run in this many lanes side by side (each with its own test server, worker and
   * destination server): a scenario mostly waits on round trips, so lanes fill the cores.
   */
  private static final int LANES = Integer.getInteger("faults.lanes", 8);
  private static final int LANE_START_ATTEMPTS = 3;
  /** Lanes that started or may still start; the last one to give up fails the seeds left. */
  private static final AtomicInteger LIVE_LANES = new AtomicInteger();
  /** Runs only the seeds with snapshots on (a quicker check of the snapshot's faults). */
  private static final boolean SNAPSHOT_SEEDS_ONLY = Boolean.getBoolean("faults.snapshotSeedsOnly");
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
  /** A scenario that takes longer than this is reported as slow (median about 10 s on an idle machine). */
  private static final Duration SLOW_SCENARIO = Duration.ofSeconds(60);
  private static final FaultCounters COUNTERS = FaultCounters.SUITE;
  private static final AtomicInteger MIRRORS = new AtomicInteger();
  private static final long STARTED = System.nanoTime();
  private static final Map<Long, Long> MILLIS_BY_SEED = new ConcurrentHashMap<>();

  private static ExecutorService lanes;

  @TestFactory
  Stream<DynamicTest> scenarios() {
    String only = System.getProperty("seed");
    List<Long> seeds = (only != null && !only.isBlank()
        ? Stream.of(only.split(",")).mapToLong(seed -> Long.parseLong(seed.trim()))
        : LongStream.rangeClosed(1, Long.getLong("faults.soak", DEFAULT_SCENARIOS))).boxed()
        .filter(seed -> !SNAPSHOT_SEEDS_ONLY || FaultOptions.isSnapshotSeed(seed)).toList();
    Map<Long, CompletableFuture<Void>> outcomes = new ConcurrentHashMap<>();
    seeds.forEach(seed -> outcomes.put(seed, new CompletableFuture<>()));
    Queue<Long> queue = new ConcurrentLinkedQueue<>(seeds);
    int laneCount = Math.max(1, Math.min(LANES, seeds.size()));
    LIVE_LANES.set(laneCount);
    SuiteCatalog.checkpoints();
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
    FaultLane lane = null;
    Throwable failure = null;
    // A lane's server can lose a race for its port on a busy machine: it tries again on a new one.
    for (int attempt = 1; attempt <= LANE_START_ATTEMPTS && lane == null; attempt++) {
      try {
        lane = new FaultLane();
      } catch (Throwable t) {
        failure = t;
      }
    }
    if (lane == null) {
      // The other lanes run its seeds; only when no lane is left do the seeds fail, with the reason.
      if (LIVE_LANES.decrementAndGet() == 0) {
        for (Long seed = queue.poll(); seed != null; seed = queue.poll()) {
          outcomes.get(seed).completeExceptionally(new AssertionError("lane " + number + " did not start", failure));
        }
      }
      return;
    }
    try (FaultLane started = lane) {
      for (Long seed = queue.poll(); seed != null; seed = queue.poll()) {
        try {
          runScenario(started, seed);
          outcomes.get(seed).complete(null);
        } catch (Throwable t) {
          started.retireHarness();
          outcomes.get(seed).completeExceptionally(t);
        }
      }
    } finally {
      LIVE_LANES.decrementAndGet();
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
        && FaultOptions.SNAPSHOT_EVERY == 4 && FaultOptions.WORKER_CRASHES && FaultOptions.HEARTBEAT_STALLS;
    if (fullRun && COUNTERS.get("scenarios") == Long.getLong("faults.soak", DEFAULT_SCENARIOS)) {
      List<String> never = SNAPSHOT_FAULTS.stream().filter(kind -> COUNTERS.get(kind) == 0).toList();
      if (!never.isEmpty()) {
        fail("snapshot faults that fired in no seed: " + never);
      }
    }
  }

  private static void runScenario(FaultLane lane, long seed) throws Exception {
    FaultHarness env = lane.harness();
    long started = System.nanoTime();
    Scenario scenario = new Scenario(seed, "flt" + MIRRORS.incrementAndGet(), lane, env);
    ScenarioDriver driver = new ScenarioDriver(scenario);
    env.scenarios.put(scenario.mirror.name(), scenario);
    try {
      driver.run();
      COUNTERS.increment("scenarios");
      COUNTERS.add("events checked", scenario.workload.events.size());
      scenario.counted.forEach(COUNTERS::add);
    } catch (Throwable t) {
      if (FaultOptions.DEBUG) {
        driver.dumpLatestHistories();
      }
      AssertionError failure = new AssertionError("seed=" + seed + " (rerun alone with -Dseed=" + seed + "): "
          + t.getMessage() + "\n" + scenario.describe(), t);
      throw failure;
    } finally {
      driver.stop();
      env.scenarios.remove(scenario.mirror.name());
      long millis = (System.nanoTime() - started) / 1_000_000;
      MILLIS_BY_SEED.put(seed, millis);
      if (millis > SLOW_SCENARIO.toMillis()) {
        // Not a failure: the driver fails a scenario only when it stops making progress. A slow
        // one says so, so that a busy machine shows in the report rather than as red seeds.
        COUNTERS.increment("scenarios slower than " + SLOW_SCENARIO.toSeconds() + " s (a busy machine)");
        System.out.println("seed " + seed + " was slow: " + millis + " ms");
      }
      if (FaultOptions.TIMES) {
        System.out.println("seed " + seed + ": " + MILLIS_BY_SEED.get(seed) + " ms; " + scenario.describe());
      }
    }
  }
}
