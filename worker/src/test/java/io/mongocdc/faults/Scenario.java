package io.mongocdc.faults;

import com.google.protobuf.ByteString;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.decode.Namespace;
import io.mongocdc.destination.PostgresMirrorDestination;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.privacy.FieldRedactor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.ChangeHistorySettings;
import io.mongocdc.workflows.model.ControlEventPolicy;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRules;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.client.ActivityCompletionException;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import io.mongocdc.testing.TestPorts;

/**
 * One seed: its workload, its mirror, its fault plan, and what the run does to them as it goes (the
 * activity attempts running here, the checkpoint stored, the signals pending). The ports with
 * faults ({@link FaultyDestination}, {@link FaultyCheckpointCatalog}, {@link FaultySnapshotCatalog})
 * and the {@link ScenarioDriver} act on it; the {@link FaultOracle} checks it.
 */
final class Scenario {

  /** The collection a snapshot scenario may add to its running mirror. */
  static final String ADDED_COLLECTION = "items";
  /** Idle polls (1 s of the scripted clock each) in a row that end a batch. */
  private static final int IDLE_TIMEOUT_SECONDS = 2;
  /** How long a batch failing during a cancelling pause waits for the server's cancellation request. */
  private static final Duration CANCEL_REQUEST_WAIT = Duration.ofSeconds(5);

  final long seed;
  final Random random;
  final FaultLane lane;
  final FaultHarness harness;
  final MirrorConfig mirror;
  final RandomWorkload workload;
  final String table;
  final PullTuning tuning;
  final Map<String, Long> counted = new ConcurrentHashMap<>();
  final List<String> plan = new ArrayList<>();
  final List<String> violations = new CopyOnWriteArrayList<>();
  /** The faults drawn from the seed. */
  final FaultPlan faults;
  /** Checks the run against the workload, at every catalog commit and at the end. */
  final FaultOracle oracle;

  // snapshots
  /** Whether this seed runs with snapshots on (its collections hold documents before the start). */
  final boolean snapshots;
  /** The mirror keeps a change history of orders, checked event by event at the end. */
  final boolean history;
  /**
   * The field rules on orders ({@link #FIELD_RULES}), or null without: the oracle expects every
   * row of orders as the rules leave its document.
   */
  final FieldRedactor ordersRules;
  /** A seed's field rules: an exclude inside a sub-document, and a hash of a field every update sets. */
  static final FieldRules FIELD_RULES = new FieldRules(List.of("nested.tag"), List.of("status"));
  /** The seed's field rule edits (null without: its rules stay {@link #FIELD_RULES}). */
  final RuleEditPlan ruleEdits;
  /** No rule edit is sent any more: the driver waits for those sent to settle before it ends the run. */
  volatile boolean ruleEditsClosed;
  /** The field rules the mirror ended with (its status at the end), which the oracle holds the rows to. */
  volatile FieldRuleSettings finalRules;
  /** Gate faults fired so far (the points {@link RuleEditPlan.When#GATE} counts). */
  final AtomicInteger gatesFired = new AtomicInteger();
  /** Whether the scenario adds {@link #ADDED_COLLECTION} to the running mirror. */
  final boolean addsCollection;
  /** The source of a snapshot scenario (null otherwise). */
  final SnapshotScenarioSource source;
  /** Per collection, the position its snapshot started at (its copied rows carry it). */
  final Map<String, ResumeToken> snapshotStarts = new ConcurrentHashMap<>();
  /** Per partition recorded done (collection and range), the last attempt that had started then. */
  final Map<String, Long> recordedDone = new ConcurrentHashMap<>();
  /** Per collection, the partitions its (first) plan holds. */
  final Map<String, Integer> partitionsPlanned = new ConcurrentHashMap<>();
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
  /** Watches the driver's progress from the start of its run. */
  volatile ProgressWatch watch;
  /** What the driver did to move the mirror on: gates fired, resumes, the collection added. */
  final AtomicLong driverSteps = new AtomicLong();
  volatile boolean pausePending;
  /** A cancelling pause was sent and the mirror has not yet reported PAUSED. */
  volatile boolean cancelling;
  volatile boolean restorePauseAtNextCommit;
  volatile boolean ending;
  volatile ResumeToken stored;

  Scenario(long seed, String name, FaultLane lane, FaultHarness harness) {
    this.seed = seed;
    this.random = new Random(seed);
    this.lane = lane;
    this.harness = harness;
    // Chosen from the seed alone, so the seeds without snapshots play what they played before.
    this.snapshots = FaultOptions.isSnapshotSeed(seed);
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
      // One collection, orders, empty before the first event.
      this.workload = new RandomWorkload(random, events, IDLE_TIMEOUT_SECONDS, withDrops,
          List.of(new RandomWorkload.CollectionPlan(RandomWorkload.ORDERS, 0)));
      this.source = null;
    }
    String policy = random.nextBoolean() ? "PAUSE" : "IGNORE";
    SnapshotSettings snapshotSettings = snapshots
        ? new SnapshotSettings(true, 3 + random.nextInt(6), 1 + random.nextInt(3), null)
        : SnapshotSettings.off();
    // The draws in the order the fault plans were made with: batch size, decode workers, chunk size, continue-as-new.
    MirrorSettings settings = MirrorSettings.defaults().toBuilder().batchSize(5 + random.nextInt(36))
        .idleTimeoutSeconds(IDLE_TIMEOUT_SECONDS).maxBatchDurationSeconds(600).decodeWorkers(1 + random.nextInt(4))
        .chunkSize(1 + random.nextInt(10)).controlEventPolicy(ControlEventPolicy.valueOf(policy))
        .continueAsNewEveryBatches(1 + random.nextInt(5)).snapshot(snapshotSettings).build();
    this.history = FaultOptions.isHistorySeed(seed);
    if (history) {
      // No draw from random: the seed plays the workload and faults it played without history.
      settings = settings.withHistory(new ChangeHistorySettings(null, List.of(RandomWorkload.ORDERS), null));
      count("history scenarios", 1);
    }
    if (FaultOptions.isFieldRuleSeed(seed)) {
      // No draw from random either.
      settings = settings.withFieldRules(new FieldRuleSettings(Map.of(RandomWorkload.ORDERS, FIELD_RULES)));
      this.ordersRules = FieldRedactor.of(FIELD_RULES, FaultLane.FIELD_HASH_KEY);
      count("field rule scenarios", 1);
    } else {
      this.ordersRules = null;
    }
    // From a random of its own: the seed's workload and faults stay those it played without.
    this.ruleEdits = FaultOptions.isRuleEditSeed(seed) ? new RuleEditPlan(seed, plan) : null;
    if (ruleEdits != null) {
      count("rule edit scenarios", 1);
    }
    this.mirror = new MirrorConfig(name, FaultLane.SOURCE_PEER, FaultLane.DESTINATION_PEER, RandomWorkload.DATABASE,
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
    this.faults = new FaultPlan(this);
    this.tuning = PullTuning.defaults().withProgressInterval(Duration.ofMillis(20))
        .withCommitInterval(3 + random.nextInt(18), 0).withShutdownTimeout(Duration.ofSeconds(10));
    plan.add("commitIntervalRecords=" + tuning.commitIntervalRecords());
    this.oracle = new FaultOracle(this);
  }

  /** The ports of a new worker: new destination connections, the scenario's source and catalog, with faults. */
  WorkerPorts newPorts() {
    TestPorts.Builder ports = TestPorts.inMemory().checkpoints(new FaultyCheckpointCatalog(this))
        .destination(tables -> new FaultyDestination(this,
            new PostgresMirrorDestination(lane.peers, PostgresSinkOptions.defaults(), tables)));
    if (!snapshots) {
      return ports.source(new ScriptedSource(workload.stream, Fixtures.BEFORE_EVENTS, lane.peers)).build();
    }
    // The source and the snapshot catalog outlive the worker, as a database and the catalog do.
    return ports.source(source).snapshots(new FaultySnapshotCatalog(this)).build();
  }

  /** The destination table of a collection of the source database. */
  String tableOf(String collection) {
    return TableNaming.qualified(mirror.destinationSchema(),
        TableNaming.tableName(new Namespace(RandomWorkload.DATABASE, collection)));
  }

  /** Sends the rule edits due at the {@code n}-th point of this kind, unless the driver is winding down. */
  void sendRuleEdits(RuleEditPlan.When when, int n) {
    if (ruleEdits == null || ruleEditsClosed || ending) {
      return;
    }
    for (Map<String, Object> edit : ruleEdits.due(when, n)) {
      CdcFlowWorkflow workflow = harness.client.newWorkflowStub(CdcFlowWorkflow.class,
          MirrorIds.workflowId(mirror.name()));
      signal(() -> workflow.requestEdit(edit));
      count("fault: field rule edit at " + when.name().toLowerCase().replace('_', ' '), 1);
      driverSteps.incrementAndGet();
    }
  }

  void count(String kind, long n) {
    counted.merge(kind, n, Long::sum);
  }

  /**
   * A batch runs with these collections. The added one is among them from its edit on, while its
   * copy runs beside the batches: it counts as added once every partition of that copy is
   * recorded done too.
   */
  synchronized void watching(List<String> collections) {
    Integer partitions = partitionsPlanned.get(ADDED_COLLECTION);
    long done = recordedDone.keySet().stream().filter(k -> k.startsWith(ADDED_COLLECTION + " ")).count();
    if (!added && collections.contains(ADDED_COLLECTION) && partitions != null && done >= partitions) {
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
    partitionsPlanned.putIfAbsent(plan.collection(), plan.partitionsTotal());
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

  /** The mirror's workflow, whichever run is the latest. */
  WorkflowStub stub() {
    return harness.client.newUntypedWorkflowStub(MirrorIds.workflowId(mirror.name()));
  }

  void addCollection(CdcFlowWorkflow workflow) {
    addSent = true;
    driverSteps.incrementAndGet();
    signal(() -> workflow.requestEdit(Map.of("addCollections", List.of(ADDED_COLLECTION))));
  }

  /**
   * Sends a signal, again if it met the instant between two runs of a continue-as-new, when the
   * test server answers NOT_FOUND "Completed workflow" for the latest run.
   */
  static void signal(Runnable send) {
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

  /** Waits until no attempt of this scenario runs in this process (a stale one may still end). */
  boolean awaitNothingRunning(Duration timeout) {
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
}
