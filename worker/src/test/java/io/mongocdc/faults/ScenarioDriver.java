package io.mongocdc.faults;

import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.testing.WorkerEnvironment;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.StopRequest;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.RespondActivityTaskCanceledRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowServiceException;
import io.temporal.client.WorkflowStub;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Plays a scenario to its end: starts its mirror, fires the plan's gates when the mirror reaches
 * them, moves the test server's clock over back-offs and heartbeat timeouts when nothing runs
 * here, resumes a paused mirror, and once every event is committed terminates the mirror and hands
 * the run to the {@link FaultOracle}. It gives up when the scenario stops making progress
 * ({@link ProgressWatch}), not after a fixed time, so a busy machine makes a run slower, not red.
 */
final class ScenarioDriver {

  /** A scenario fails as hung when nothing moved for this long (see {@link #progress}). */
  private static final Duration STALL_LIMIT = Duration.ofSeconds(60);
  /** A scenario that keeps moving but has not ended after this long fails as a livelock. */
  private static final Duration SCENARIO_CEILING = Duration.ofMinutes(5);
  /**
   * The workflow task timeout of the suite's mirrors: after a worker crash, the task the server
   * sent to the dead worker's sticky queue is given to the new worker after this long.
   */
  private static final Duration WORKFLOW_TASK_TIMEOUT = Duration.ofSeconds(2);
  /**
   * When no activity attempt started or ended for this long, the driver asks the server whether
   * the mirror waits on a timer (a retry back-off, a heartbeat timeout, the workflow's back-off).
   */
  private static final long QUIET_NANOS = Duration.ofMillis(5).toNanos();
  /**
   * While its looks find nothing to do (a heartbeat timeout passing in real time), the driver
   * looks half as often each time, down to once per this long: every look is a describe and a
   * status query, and eight lanes looking every 5 ms would take the cores the mirrors need.
   */
  private static final long QUIET_NANOS_MAX = Duration.ofMillis(80).toNanos();

  private final Scenario scenario;
  /** How long the scenario must have been quiet for the driver's next look. */
  private long quietNanos = QUIET_NANOS;
  /** When the driver last looked (the scenario's {@code lastChange} it then set). */
  private long lookedAt;
  /** When the driver may next ask whether the copies are over ({@link #copiesOver}). */
  private long copiesLookAt;
  /** When the driver next looks for cancelled attempts in limbo ({@link #endCancelledLimbo}). */
  private long cancelLookAt;
  /** Dead attempts the driver ended as cancelled ({@link #endDeadCancelledAttempt}). */
  private final java.util.Set<String> endedCancelled = new java.util.HashSet<>();

  ScenarioDriver(Scenario scenario) {
    this.scenario = scenario;
  }

  void run() throws Exception {
    scenario.harness.startWorker(scenario);
    CdcFlowWorkflow starter = scenario.harness.client.newWorkflowStub(CdcFlowWorkflow.class,
        WorkflowOptions.newBuilder()
            .setWorkflowId(MirrorIds.workflowId(scenario.mirror.name()))
            .setTaskQueue(WorkerEnvironment.TASK_QUEUE)
            .setWorkflowTaskTimeout(WORKFLOW_TASK_TIMEOUT)
            .build());
    int refusedBefore = scenario.harness.partition.refused();
    WorkflowClient.start(starter::run, CdcFlowInput.newMirror(scenario.mirror));
    CdcFlowWorkflow workflow = scenario.harness.client.newWorkflowStub(CdcFlowWorkflow.class,
        MirrorIds.workflowId(scenario.mirror.name()));
    ResumeToken last = scenario.workload.lastToken();
    scenario.watch = new ProgressWatch(STALL_LIMIT, SCENARIO_CEILING, System::nanoTime);
    while (!delivered(last) || scenario.pausePending || (scenario.addsCollection && !scenario.added)
        || !copiesOver(workflow)) {
      if (scenario.addsCollection && !scenario.addSent && delivered(last) && !scenario.pausePending) {
        // Every event is delivered before the planned commit came: the collection is added now,
        // and its snapshot then holds all of its changes.
        scenario.addCollection(workflow);
      }
      pump(workflow, scenario.addsCollection && !scenario.added && delivered(last)
          ? "a batch with the added collection" : "the committed checkpoint to reach the last event");
    }
    if (scenario.ruleEdits != null) {
      awaitRuleEditsSettled(workflow);
    }
    scenario.ending = true;
    Scenario.signal(() -> workflow.terminate(null));
    WorkflowStub stub = scenario.stub();
    while (stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      pump(workflow, "the workflow to terminate");
    }
    MirrorStatus status = stub.getResult(MirrorStatus.class);
    scenario.finalRules = status.config().settings().fieldRules();
    scenario.count("heartbeats of timed-out attempts answered NOT_FOUND",
        scenario.harness.partition.refused() - refusedBefore);
    if (scenario.snapshots && scenario.source.failuresSpent()) {
      scenario.count("fault: copy fails until retries are spent", 1);
    }
    if (FaultOptions.DEBUG) {
      dumpLatestHistories();
    }
    if (status.state() != MirrorPhase.TERMINATED) {
      fail("the mirror ended " + status.state());
    }
    scenario.oracle.check();
  }

  /**
   * No rule edit is sent from now on; waits until those sent have taken effect and the rewrites
   * they queued are done: two batches have committed since (an edit waits for a batch's end), no
   * edit is pending and no rewrite runs.
   */
  private void awaitRuleEditsSettled(CdcFlowWorkflow workflow) throws SQLException {
    scenario.ruleEditsClosed = true;
    int commitsBefore = scenario.catalogCommits.get();
    long lookAt = 0;
    while (true) {
      if (System.nanoTime() >= lookAt && scenario.catalogCommits.get() >= commitsBefore + 2) {
        MirrorStatus status = status(workflow);
        if (status.pendingEdits().isEmpty() && status.fieldRuleRewrite() == null && !scenario.pausePending) {
          return;
        }
        lookAt = System.nanoTime() + Duration.ofMillis(20).toNanos();
      }
      pump(workflow, "the field rule edits to take effect and their rewrites to finish");
    }
  }

  /**
   * Whether every copy, with the sweep after it, is over: the batches stream while a copy runs, so
   * the checkpoint can reach the last event with partitions still to copy.
   */
  private boolean copiesOver(CdcFlowWorkflow workflow) {
    // A status query at most every 20 ms: a query per pump would take the cores the mirrors need.
    if (System.nanoTime() < copiesLookAt) {
      return false;
    }
    copiesLookAt = System.nanoTime() + Duration.ofMillis(20).toNanos();
    return status(workflow).copiesOver();
  }

  /** Whether the stored checkpoint has reached the last event. */
  private boolean delivered(ResumeToken last) {
    ResumeToken stored = scenario.stored;
    return stored != null && stored.compareTo(last) >= 0;
  }

  void dumpLatestHistories() {
    try {
      dumpHistories(
          scenario.stub().describe().getRawDescription().getWorkflowExecutionInfo().getExecution().getRunId());
    } catch (RuntimeException e) {
      System.err.println("DEBUG no history: " + e);
    }
  }

  private void dumpHistories(String runId) {
    List<String> runs = new ArrayList<>();
    String run = runId;
    while (run != null && !run.isEmpty()) {
      var history = scenario.harness.client.fetchHistory(MirrorIds.workflowId(scenario.mirror.name()), run);
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

  /** A mark that grows whenever the mirror or the driver moves the scenario on. */
  private long progress() {
    return scenario.sinkWrites.get() + scenario.sinkCommits.get() + scenario.catalogCommits.get()
        + scenario.partitionsRecorded.get() + scenario.driverSteps.get();
  }

  private void pump(CdcFlowWorkflow workflow, String waitingFor) throws SQLException {
    String overdue = scenario.watch.overdue(progress());
    if (overdue != null) {
      if (FaultOptions.DEBUG) {
        Thread.getAllStackTraces().forEach((t, stack) -> {
          if (t.getName().startsWith("mongo-cdc-") || t.getName().startsWith("Activity Executor")) {
            System.err.println("DEBUG thread " + t.getName() + "\n  " + java.util.Arrays.stream(stack)
                .limit(25).map(String::valueOf).collect(java.util.stream.Collectors.joining("\n  ")));
          }
        });
      }
      MirrorStatus status = status(workflow);
      fail("timed out waiting for " + waitingFor + ": " + overdue + "; stored=" + scenario.stored
          + " last=" + scenario.workload.lastToken() + " running=" + scenario.running.values() + " status=" + status);
    }
    for (PlannedGate g : scenario.faults.gates) {
      if (!g.fired && g.gate.isReached()) {
        g.fired = true;
        scenario.driverSteps.incrementAndGet();
        fire(g, workflow);
        // A rule edit right after the fault: during a crash's takeover, a stall, a cancelling pause.
        scenario.sendRuleEdits(RuleEditPlan.When.GATE, scenario.gatesFired.incrementAndGet());
        scenario.lastChange = System.nanoTime();
        return;
      }
    }
    if (System.nanoTime() >= cancelLookAt) {
      // Batches that return at once keep the scenario from going quiet; a copy cancelled while its
      // attempt is dead or stalled must still be ended (see endDeadCancelledAttempt).
      cancelLookAt = System.nanoTime() + Duration.ofMillis(100).toNanos();
      if (endCancelledLimbo()) {
        scenario.lastChange = System.nanoTime();
        return;
      }
    }
    long now = System.nanoTime();
    long changed = scenario.lastChange;
    if (changed != lookedAt) {
      // An attempt started or ended, or a gate fired, since the last look: look soon again.
      quietNanos = QUIET_NANOS;
    }
    if (now - changed >= quietNanos && runningHere() == 0) {
      scenario.lastChange = now;
      lookedAt = now;
      if (moveServerClock(workflow)) {
        quietNanos = QUIET_NANOS;
        return;
      }
      quietNanos = Math.min(2 * quietNanos, QUIET_NANOS_MAX);
    }
    LockSupport.parkNanos(Duration.ofMillis(1).toNanos());
  }

  /** Attempts running in this process, apart from stalled ones that run on beside their retries. */
  private int runningHere() {
    int n = 0;
    for (Thread t : scenario.running.keySet()) {
      if (!scenario.stuck.contains(t)) {
        n++;
      }
    }
    return n;
  }

  private Map.Entry<Thread, Running> runningPull() {
    for (Map.Entry<Thread, Running> e : scenario.running.entrySet()) {
      if (e.getValue().type().equals("pull") && !scenario.stuck.contains(e.getKey())) {
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
        scenario.count("fault: destination connections killed (pg_terminate_backend)", 1);
        scenario.count("destination backends terminated", terminated);
        g.gate.release();
      }
      case RESTART_POSTGRES -> {
        scenario.lane.destination.restart();
        scenario.count("fault: destination PostgreSQL restarted", 1);
        g.gate.release();
      }
      case CRASH_WORKER -> {
        Map.Entry<Thread, Running> pull = runningPull();
        if (pull != null) {
          scenario.timeoutExpected = pull.getValue();
        }
        scenario.harness.crashWorker(scenario);
        scenario.count("fault: worker crashed mid-batch, a new worker took over", 1);
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
        scenario.stuck.add(pull.getKey());
        scenario.timeoutExpected = pull.getValue();
        scenario.harness.partition.cut();
        scenario.count("fault: heartbeat stalled until the heartbeat timeout", 1);
      }
      case CANCELLING_PAUSE -> {
        if (scenario.snapshots || scenario.addsCollection) {
          // The test server loses an activity's completion that lands during the workflow task
          // cancelling it, and that workflow then fails every task (reliability.md, the test
          // server's gaps). Partitions beside the batches end every few milliseconds here, so in
          // a scenario that copies the pause does not cancel; SnapshotWorkflowTest cancels a
          // stuck copy. (No status query to look: after a crash it waits on the dead worker.)
          Scenario.signal(() -> workflow.pause(null));
          scenario.pausePending = true;
          scenario.count("fault: cancelling pause sent without cancelling (a scenario that copies, a test server gap)", 1);
          g.gate.release();
          return;
        }
        // The reader stays at the gate: the batch learns of the cancellation from its next
        // heartbeat, and stopping must take the reader out of its blocked read.
        scenario.cancelling = true;
        Scenario.signal(() -> workflow.pause(new StopRequest(true)));
        scenario.pausePending = true;
        scenario.count("fault: pause cancelling the batch in flight", 1);
      }
      default -> throw new IllegalStateException(g.kind.name());
    }
  }

  /** A gate in a partition's copy, or right after a partition was recorded done, was reached. */
  private void fireInCopy(PlannedGate g, CdcFlowWorkflow workflow) throws SQLException {
    switch (g.kind) {
      case PAUSE -> {
        Scenario.signal(() -> workflow.pause(null));
        scenario.pausePending = true;
        scenario.count("fault: pause during snapshot copy", 1);
        g.gate.release();
      }
      case KILL_CONNECTIONS -> {
        int terminated = killDestinationBackends();
        scenario.count("fault: connections killed during snapshot copy", 1);
        scenario.count("destination backends terminated", terminated);
        g.gate.release();
      }
      case RESTART_POSTGRES -> {
        scenario.lane.destination.restart();
        scenario.count("fault: PostgreSQL restart during snapshot copy", 1);
        g.gate.release();
      }
      case CRASH_WORKER -> {
        // Every copy running goes down with the worker; the server retries each once its
        // heartbeat timeout passes. After a crash right after the catalog recorded the
        // partition done, the retry must answer from the catalog without reading it again.
        scenario.harness.crashWorker(scenario);
        scenario.count(g.point == GatePoint.RECORDED_DONE ? "fault: crash after partition recorded done"
            : "fault: crash during snapshot copy", 1);
        g.gate.release();
      }
      case HEARTBEAT_STALL -> {
        Thread thread = g.thread;
        Running attempt = thread == null ? null : scenario.running.get(thread);
        ByteString token = attempt == null ? null : scenario.tokens.get(attempt);
        if (token == null) {
          g.gate.release();
          return;
        }
        // Only this attempt's heartbeats are held; the partitions beside it go on. The copy
        // stays at the gate until its retry starts: then its next heartbeat is answered
        // NOT_FOUND, which must close its cursor, end the blocked read and roll it back.
        scenario.stuck.add(thread);
        scenario.harness.partition.hold(token);
        scenario.count("fault: heartbeat stall during snapshot copy", 1);
      }
      case SOURCE_CHANGES -> {
        int before = scenario.source.eventsApplied();
        scenario.source.advanceTo(scenario.faults.sourceMovesTo);
        scenario.count("snapshot: changes made during the copy", scenario.source.eventsApplied() - before);
        g.gate.release();
      }
      default -> throw new IllegalStateException(g.kind.name());
    }
  }

  /**
   * Nothing runs here: if the mirror waits on a server timer (an activity retry, a heartbeat
   * timeout of a crashed or stalled attempt, the workflow's back-off), skips the server's clock
   * to it (the test server's clock stands still while the test does not wait on it); resumes a
   * paused mirror. True if it did something.
   */
  private boolean moveServerClock(CdcFlowWorkflow workflow) {
    DescribeWorkflowExecutionResponse d = scenario.stub().describe().getRawDescription();
    if (d.getWorkflowExecutionInfo().getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      return false;
    }
    long now = scenario.harness.env.currentTimeMillis();
    if (FaultOptions.DEBUG) {
      System.err.println("DEBUG now=" + now + " expected=" + scenario.timeoutExpected
          + " running=" + scenario.running.values() + " pending=" + d.getPendingActivitiesList());
    }
    if (d.getPendingActivitiesCount() > 0) {
      String run = d.getWorkflowExecutionInfo().getExecution().getRunId();
      for (PendingActivityInfo p : d.getPendingActivitiesList()) {
        if (endedInLimbo(run, p)) {
          return true;
        }
        // The test server reports an activity waiting for its retry as STARTED with the next
        // attempt's number: it waits for a retry if that attempt has not started here.
        if (p.getAttempt() > 1
            && !scenario.startedHere.contains(run + "/" + p.getActivityId() + "#" + p.getAttempt())) {
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
      // A step of the workflow's back-off moves the mirror on: on a server whose clock no
      // longer jumps, the back-off passes in real time and must not count as a hang.
      scenario.driverSteps.incrementAndGet();
      skip(left, "workflow back-offs skipped");
      return true;
    }
    if (status.state() == MirrorPhase.PAUSED && !scenario.ending) {
      scenario.cancelling = false;
      String reason = status.pausedReason();
      if (reason != null && reason.startsWith("stopped before a control event")) {
        // What the operator is told to do: set the policy to IGNORE, then resume.
        Scenario.signal(() -> workflow.requestEdit(Map.of("controlEventPolicy", "IGNORE")));
        scenario.restorePauseAtNextCommit = true;
        scenario.count("control event stops (PAUSE) passed by edit + resume", 1);
      }
      Scenario.signal(workflow::resume);
      scenario.pausePending = false;
      scenario.driverSteps.incrementAndGet();
      return true;
    }
    return false;
  }

  /** Ends the cancelled attempts in limbo on the test server (stalled or dead); true if it did. */
  private boolean endCancelledLimbo() {
    DescribeWorkflowExecutionResponse d = scenario.stub().describe().getRawDescription();
    String run = d.getWorkflowExecutionInfo().getExecution().getRunId();
    for (PendingActivityInfo p : d.getPendingActivitiesList()) {
      if (endedInLimbo(run, p)) {
        return true;
      }
    }
    return false;
  }

  /** Ends {@code p} of run {@code run} if it is a cancelled attempt in limbo (stalled or dead); true if it did. */
  private boolean endedInLimbo(String run, PendingActivityInfo p) {
    return p.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED
        && (releaseCancelledStall(run + "/" + p.getActivityId(), p.getAttempt())
            || endDeadCancelledAttempt(run + "/" + p.getActivityId(), p.getAttempt()));
  }

  /**
   * A copy attempt that died with a crashed worker after the workflow asked for its cancellation
   * (the operator's {@code cancelInFlight} reaches the copies made beside the batches). A Temporal
   * server ends it by its heartbeat timeout, and the cancellation completes; the test server never
   * times out an activity once its cancellation is requested, so the driver reports the dead
   * attempt cancelled with its task token, as the server would have ended it.
   *
   * @return whether such an attempt was ended
   */
  private boolean endDeadCancelledAttempt(String activity, int attempt) {
    for (Map.Entry<Running, ByteString> e : scenario.tokens.entrySet()) {
      Running r = e.getKey();
      if (r.activity().equals(activity) && r.attempt() == attempt && !scenario.running.containsValue(r)
          && endedCancelled.add(activity + "#" + attempt)) {
        try {
          scenario.harness.env.getWorkflowServiceStubs().blockingStub().respondActivityTaskCanceled(
              RespondActivityTaskCanceledRequest.newBuilder().setNamespace(scenario.harness.env.getNamespace())
                  .setTaskToken(e.getValue()).setIdentity("fault-driver").build());
          scenario.count("dead attempts ended once their cancellation was asked for", 1);
        } catch (StatusRuntimeException gone) {
          // The attempt's own answer reached the server first: nothing to end.
        }
        return true;
      }
    }
    return false;
  }

  /**
   * A stalled attempt (its heartbeats held) whose cancellation the workflow asked for: the test
   * server never times out an activity once its cancellation is requested (a Temporal server
   * does, by its heartbeat timeout), so the stall ends here and the attempt's next heartbeat learns
   * of the cancellation, which closes its cursor and ends its blocked read. The workflow cancels
   * copies under way beside the batches when the operator cancels (in the scenarios that copy the
   * driver's pauses do not cancel, see CANCELLING_PAUSE) and when an edit or a resync has waited
   * for them for 200 batches, so a stalled copy can be cancelled.
   *
   * @return whether such an attempt was released
   */
  private boolean releaseCancelledStall(String activity, int attempt) {
    for (Map.Entry<Thread, Running> e : scenario.running.entrySet()) {
      Running r = e.getValue();
      ByteString token = scenario.tokens.get(r);
      if (scenario.stuck.contains(e.getKey()) && r.activity().equals(activity) && r.attempt() == attempt
          && token != null) {
        scenario.stuck.remove(e.getKey());
        scenario.harness.partition.release(token);
        scenario.count("stalled attempts released once their cancellation was asked for", 1);
        return true;
      }
    }
    return false;
  }

  /**
   * The mirror's status, asked again when a query times out ({@link FaultHarness#QUERY_TIMEOUT}): the test
   * server can lose a query task, and after a worker crash it sends queries to the dead worker's
   * sticky queue until a workflow task times out there.
   */
  private MirrorStatus status(CdcFlowWorkflow workflow) {
    while (true) {
      try {
        return workflow.status();
      } catch (WorkflowServiceException e) {
        if (!(e.getCause() instanceof StatusRuntimeException grpc)
            || grpc.getStatus().getCode() != Status.Code.DEADLINE_EXCEEDED
            || scenario.watch == null || scenario.watch.expired()) {
          throw e;
        }
        scenario.count("status queries asked again after a lost query task", 1);
      }
    }
  }

  private void skip(long millis, String kind) {
    long began = System.nanoTime();
    scenario.harness.env.sleep(Duration.ofMillis(millis));
    long took = (System.nanoTime() - began) / 1_000_000;
    if (millis >= 1000 && took >= millis * 3 / 4) {
      // The server's clock did not jump: something held time skipping (see FaultLane#harness).
      scenario.count("clock skips that passed in real time", 1);
      if (FaultOptions.TIMES) {
        System.out.println("seed " + scenario.seed + ": skipping " + millis + " ms (" + kind + ") took " + took
            + " ms");
      }
    }
    if (kind != null) {
      scenario.count(kind, 1);
    }
  }

  /** The workflow's wait after its {@code failures}-th failed batch: 30 s doubling, at most 10 min. */
  private static long workflowBackoffMillis(int failures) {
    return Math.min(600_000L, 30_000L << Math.min(Math.max(failures - 1, 0), 10));
  }

  private int killDestinationBackends() throws SQLException {
    try (Connection c = scenario.lane.destinationData.getConnection();
        PreparedStatement st = c.prepareStatement("select count(*) filter (where pg_terminate_backend(pid))"
            + " from pg_stat_activity where datname = ? and pid <> pg_backend_pid()"
            + " and backend_type = 'client backend' and application_name <> ?")) {
      st.setString(1, FaultLane.DESTINATION_DATABASE);
      st.setString(2, FaultLane.TEST_APPLICATION);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  void stop() {
    scenario.ending = true;
    scenario.harness.partition.heal();
    scenario.harness.partition.releaseAll();
    scenario.faults.gates.forEach(g -> g.gate.release());
    try {
      WorkflowStub stub = scenario.stub();
      if (stub.describe().getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
        stub.terminate("scenario over");
      }
    } catch (RuntimeException ignored) {
      // not started, or already over
    }
    scenario.awaitNothingRunning(Duration.ofSeconds(30));
    scenario.harness.stopWorker();
  }
}
