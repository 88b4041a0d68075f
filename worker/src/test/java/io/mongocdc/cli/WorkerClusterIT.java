package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Timestamp;
import io.mongocdc.catalog.CatalogMigrator;
import io.mongocdc.devtools.DestinationComparison;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.devtools.generator.GeneratorUri;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.SnapshotSettings;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.PendingActivityState;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.api.workflow.v1.PendingActivityInfo;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionRequest;
import io.temporal.api.workflowservice.v1.DescribeWorkflowExecutionResponse;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryRequest;
import io.temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.mongocdc.testing.PatientServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.testserver.TestServer;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Workers in a cluster: three {@code mongo-cdc worker} processes from the built jar serve six
 * mirrors fed by generator peers, against one standalone Temporal server and one PostgreSQL (both
 * in this JVM). While batches are in flight on one worker it is killed with SIGKILL, and a
 * replacement starts. Every mirror must still end with its destination equal to the generator's
 * final state (computed here from the peer URI, as every worker computes the stream), no row's
 * position may go back, the catalog's batch checkpoints must only move forward, and the killed
 * worker's batches must have been taken up by another worker within the heartbeat timeout.
 *
 * <p>The workers run with {@code --no-sticky-workflows}: the standalone server, unlike a Temporal
 * server, never moves a dead worker's sticky workflow tasks to the task queue (see {@code
 * WorkerWiring.workerOptions}). Runs after {@code package} (it starts the built jar).
 */
class WorkerClusterIT {

  private static final Path JAR = Path.of("target", "mongo-cdc.jar");
  private static final int MIRRORS = 6;
  private static final int WORKERS = 3;
  private static final int EVENTS = 4_000;
  /** Events per second each mirror's stream gives a batch: a mirror takes ~16 s, so batches are in flight when the kill comes. */
  private static final int RATE = 250;
  /** Activities a worker runs at once: 9 slots for 6 mirrors' batches, so the work spreads over the workers. */
  private static final int MAX_CONCURRENT_ACTIVITIES = 3;
  /** CdcActivityOptions' PullRecords heartbeat timeout: a lost worker's batch is retried after it. */
  private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(30);
  /** The retry's initial interval, a poll, and the server noticing the timeout. */
  private static final Duration SLACK = Duration.ofSeconds(15);
  private static final Duration STARTS_WITHIN = Duration.ofSeconds(90);
  /** A batch in flight the kill is sure to interrupt: started at most this long before the victim is chosen. */
  private static final Duration FRESH_BATCH = Duration.ofSeconds(1);
  private static final Duration FINISHES_WITHIN = Duration.ofSeconds(120);
  private static final String NAMESPACE = "default";

  @TempDir Path directory;
  /** The workers' output, kept after the run for a failure's post-mortem. */
  private final Path logs = Path.of("target", "worker-cluster-it");
  private final Map<String, Process> workers = new LinkedHashMap<>();
  /** The worker killed: the one with the most batches in flight when every mirror streams. */
  private volatile String victim;
  private TestServer.PortBoundTestServer server;
  private WorkflowServiceStubs service;

  @AfterEach
  void stop() throws Exception {
    try {
      for (Process worker : workers.values()) {
        worker.destroyForcibly();
      }
      for (Map.Entry<String, Process> worker : workers.entrySet()) {
        assertTrue(worker.getValue().waitFor(30, TimeUnit.SECONDS), worker.getKey() + " is still running");
      }
    } finally {
      if (service != null) {
        service.shutdownNow();
        service.awaitTermination(10, TimeUnit.SECONDS);
      }
      if (server != null) {
        server.close();
      }
    }
    assertFalse(workers.values().stream().anyMatch(Process::isAlive), "a worker process outlived the test");
  }

  @Test
  void everyMirrorMatchesItsGeneratorAfterAWorkerIsKilledInTheMiddleOfBatches() throws Exception {
    assertTrue(Files.exists(JAR), "build the jar first (mvn package): " + JAR.toAbsolutePath());
    Files.createDirectories(logs);
    int port = freePort();
    server = TestServer.createPortBoundServer(port, true); // real time
    service = PatientServiceStubs.to(port);
    WorkflowClient client = WorkflowClient.newInstance(service);
    PGSimpleDataSource database = (PGSimpleDataSource) EmbeddedPostgresSupport.newDatabase("cluster");
    String jdbcUrl = EmbeddedPostgresSupport.postgres().getJdbcUrl("postgres", database.getDatabaseName());
    CatalogMigrator.migrate(database);

    Map<String, GeneratorUri> generators = new LinkedHashMap<>();
    StringBuilder peers = new StringBuilder("pg.uri=" + jdbcUrl + "\n");
    for (int i = 1; i <= MIRRORS; i++) {
      // Half of the mirrors copy initial documents first.
      GeneratorUri uri = GeneratorUri.parse("generator:demo?seed=" + (100 + i) + "&events=" + EVENTS + "&rate=" + RATE
          + "&collections=3&initialDocuments=" + (i % 2 == 0 ? 150 : 0) + "&keySpace=2000");
      generators.put("cluster-" + i, uri);
      peers.append("gen-").append(i).append(".uri=").append(uri.toUri()).append('\n');
    }
    Path peersFile = directory.resolve("peers.properties");
    Files.writeString(peersFile, peers, StandardCharsets.UTF_8);

    List<String> command = List.of("worker", "--temporal-address", "localhost:" + port, "--catalog-url", jdbcUrl,
        "--peers-file", peersFile.toString(), "--no-sticky-workflows", "--metrics-port", "-1",
        "--max-concurrent-activities", String.valueOf(MAX_CONCURRENT_ACTIVITIES));
    for (int w = 1; w <= WORKERS; w++) {
      startWorker("cluster-worker-" + w, command);
    }
    for (String identity : List.copyOf(workers.keySet())) {
      awaitOutput(identity, "worker " + identity + " polling");
    }

    int m = 0;
    for (String mirror : generators.keySet()) {
      m++;
      MirrorConfig config = new MirrorConfig(mirror, "gen-" + m, "pg", "demo", generators.get(mirror).collectionNames(),
          "cluster_" + m,
          MirrorSettings.defaults().toBuilder().batchSize(1_000).idleTimeoutSeconds(2).maxBatchDurationSeconds(10).decodeWorkers(2).chunkSize(64)
              .snapshot(new SnapshotSettings(true, 50, 2, null)).build()).requireValid();
      CdcFlowWorkflow workflow = client.newWorkflowStub(CdcFlowWorkflow.class, WorkflowOptions.newBuilder()
          .setWorkflowId(MirrorIds.workflowId(mirror)).setTaskQueue(MirrorIds.DEFAULT_TASK_QUEUE).build());
      WorkflowClient.start(workflow::run, CdcFlowInput.newMirror(config));
    }
    Map<String, GeneratorUri.FinalState> finalStates = new LinkedHashMap<>();
    generators.forEach((mirror, uri) -> finalStates.put(mirror, uri.finalState()));

    // Every mirror streams; the victim is the worker with the most batches in flight (heartbeated,
    // and started just now, so the kill interrupts them) of mirrors that delivered a batch already
    // and have events left: after the kill, another process must continue their streams from a
    // checkpoint in the middle.
    List<InFlight> onVictim = new ArrayList<>();
    await("batches in flight", () -> {
      try (Connection connection = database.getConnection()) {
        if (count(connection, "select count(*) from mongo_cdc.mirrors where status = 'running'") < MIRRORS) {
          return false;
        }
      }
      Map<String, List<InFlight>> byWorker = new HashMap<>();
      for (String mirror : generators.keySet()) {
        if (deliveredBatches(database, mirror) > 0
            && !delivered(database, mirror, finalStates.get(mirror).lastEventToken())) {
          for (InFlight pull : pulls(mirror)) {
            // Started within the last second: a batch lasts about 4 s here (1 000 events at 250/s),
            // so it is still running when the kill comes, on a busy machine too.
            if (pull.heartbeated() && pull.startedAt().isAfter(Instant.now().minus(FRESH_BATCH))) {
              byWorker.computeIfAbsent(pull.identity(), identity -> new ArrayList<>()).add(pull);
            }
          }
        }
      }
      var busiest = byWorker.entrySet().stream().max(java.util.Comparator.comparingInt(e -> e.getValue().size()));
      busiest.ifPresent(worker -> {
        victim = worker.getKey();
        onVictim.addAll(worker.getValue());
      });
      return busiest.isPresent();
    });
    Map<String, Map<String, ResumeToken>> positionsBefore = new HashMap<>();
    try (Connection connection = database.getConnection()) {
      for (String mirror : generators.keySet()) {
        positionsBefore.put(mirror, positions(connection, mirror, generators.get(mirror)));
      }
    }

    Process killed = workers.get(victim);
    killed.destroyForcibly(); // SIGKILL: no shutdown hook, no goodbye to the server
    assertTrue(killed.waitFor(10, TimeUnit.SECONDS));
    Instant killedAt = Instant.now();
    startWorker("cluster-worker-4", command);

    // Each batch the victim had is tried again on another worker, within the heartbeat timeout.
    Instant bound = killedAt.plus(HEARTBEAT_TIMEOUT).plus(SLACK);
    List<String> retried = new ArrayList<>();
    for (InFlight pull : onVictim) {
      await("the victim's " + pull + " to be retried elsewhere", () -> {
        Retry retry = retryOf(pull);
        if (retry == null) {
          return false;
        }
        if (retry.completedBeforeTheKill()) {
          return true; // it ended between the last look and the kill: nothing of it was lost
        }
        assertNotEquals(victim, retry.identity(), pull + " ended on the killed worker after it was killed");
        assertTrue(retry.attempt() > pull.attempt(), pull + " was not retried: attempt " + retry.attempt());
        assertFalse(retry.startedAt().isAfter(bound), pull + " was retried only at " + retry.startedAt()
            + ", the worker was killed at " + killedAt);
        retried.add(pull.mirror() + " batch (attempt " + pull.attempt() + ") retried as attempt " + retry.attempt()
            + " on " + retry.identity() + " " + Duration.between(killedAt, retry.startedAt()).toMillis()
            + " ms after the kill");
        return true;
      });
    }
    assertFalse(retried.isEmpty(), "no batch of the killed worker was retried: " + onVictim);
    // For a post-mortem, beside the workers' output.
    Files.writeString(logs.resolve("run.txt"), "killed " + victim + " at " + killedAt + " with " + onVictim.size()
        + " batches in flight\n" + String.join("\n", retried) + "\n", StandardCharsets.UTF_8);
    for (InFlight pull : onVictim) {
      assertFalse(positionsBefore.get(pull.mirror()).isEmpty(), pull.mirror() + " had no rows before the kill");
    }

    // Every mirror delivers its generator's last event.
    long deadline = System.nanoTime() + FINISHES_WITHIN.toNanos();
    for (String mirror : generators.keySet()) {
      awaitUntil(deadline, "mirror " + mirror + " to deliver its last event",
          () -> delivered(database, mirror, finalStates.get(mirror).lastEventToken()));
    }

    try (Connection connection = database.getConnection()) {
      int i = 0;
      for (String mirror : generators.keySet()) {
        i++;
        String schema = "cluster_" + i;
        assertEquals(0, DestinationComparison.mismatches(connection, schema,
            generators.get(mirror).namespaces(), finalStates.get(mirror).collections(),
            io.mongocdc.privacy.MirrorRedaction.NONE),
            "mirror " + mirror + ": rows differ from the generator's final state");
        Map<String, ResumeToken> after = positions(connection, mirror, generators.get(mirror));
        positionsBefore.get(mirror).forEach((row, before) -> {
          assertNotNull(after.get(row), mirror + ": row " + row + " is gone");
          assertTrue(after.get(row).compareTo(before) >= 0,
              mirror + ": row " + row + " went back from " + before + " to " + after.get(row));
        });
        assertCheckpointsOnlyMoveForward(connection, mirror);
      }
    }
    System.out.printf("cluster: %d mirrors, %d workers, %d killed, %d events, destination matches%n", MIRRORS,
        WORKERS, 1, (long) MIRRORS * EVENTS);
  }

  private void startWorker(String identity, List<String> command) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> line = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
        "-jar", JAR.toString()));
    line.addAll(command);
    line.addAll(List.of("--identity", identity));
    workers.put(identity, new ProcessBuilder(line).redirectErrorStream(true)
        .redirectOutput(logs.resolve(identity + ".out").toFile()).start());
  }

  /** A PullRecords attempt seen running on a worker. */
  private record InFlight(String mirror, WorkflowExecution execution, String activityId, int attempt, String identity,
      boolean heartbeated, Instant startedAt) {}

  /** The attempt that took the batch up after the kill, or, if the batch ended before, one saying so. */
  private record Retry(String identity, int attempt, Instant startedAt, boolean completedBeforeTheKill) {}

  /** The mirror's batch running now, if any, and on which worker. */
  private List<InFlight> pulls(String mirror) {
    DescribeWorkflowExecutionResponse described = describe(WorkflowExecution.newBuilder()
        .setWorkflowId(MirrorIds.workflowId(mirror)).build());
    List<InFlight> pulls = new ArrayList<>();
    for (PendingActivityInfo activity : described.getPendingActivitiesList()) {
      if (activity.getActivityType().getName().equals(ActivityNames.PULL_RECORDS)
          && activity.getState() == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
          && !activity.getLastWorkerIdentity().isEmpty()) {
        pulls.add(new InFlight(mirror, described.getWorkflowExecutionInfo().getExecution(), activity.getActivityId(),
            activity.getAttempt(), activity.getLastWorkerIdentity(), activity.hasLastHeartbeatTime(),
            instant(activity.getLastStartedTime())));
      }
    }
    return pulls;
  }

  /** The pull's attempt after the kill: pending and started on a worker, or over (read from the history); null before. */
  private Retry retryOf(InFlight pull) {
    for (PendingActivityInfo activity : describe(pull.execution()).getPendingActivitiesList()) {
      if (activity.getActivityId().equals(pull.activityId())) {
        // The test server keeps a timed-out attempt's state and worker until another worker takes the
        // retry: a later attempt on another worker is the retry started.
        boolean startedAgain = activity.getAttempt() > pull.attempt() && !activity.getLastWorkerIdentity().isEmpty()
            && !activity.getLastWorkerIdentity().equals(victim);
        return startedAgain
            ? new Retry(activity.getLastWorkerIdentity(), activity.getAttempt(), instant(activity.getLastStartedTime()),
                false)
            : null;
      }
    }
    // No longer pending: the history says which attempt ended it, on which worker.
    long scheduledEventId = -1;
    for (HistoryEvent event : history(pull.execution())) {
      if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
          && event.getActivityTaskScheduledEventAttributes().getActivityId().equals(pull.activityId())) {
        scheduledEventId = event.getEventId();
      } else if (event.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
          && event.getActivityTaskStartedEventAttributes().getScheduledEventId() == scheduledEventId) {
        var started = event.getActivityTaskStartedEventAttributes();
        return new Retry(started.getIdentity(), started.getAttempt(), instant(event.getEventTime()),
            started.getAttempt() == pull.attempt() && started.getIdentity().equals(victim));
      }
    }
    return null;
  }

  private DescribeWorkflowExecutionResponse describe(WorkflowExecution execution) {
    return service.blockingStub().describeWorkflowExecution(DescribeWorkflowExecutionRequest.newBuilder()
        .setNamespace(NAMESPACE).setExecution(execution).build());
  }

  private List<HistoryEvent> history(WorkflowExecution execution) {
    List<HistoryEvent> events = new ArrayList<>();
    GetWorkflowExecutionHistoryRequest.Builder request =
        GetWorkflowExecutionHistoryRequest.newBuilder().setNamespace(NAMESPACE).setExecution(execution);
    do {
      GetWorkflowExecutionHistoryResponse page = service.blockingStub().getWorkflowExecutionHistory(request.build());
      events.addAll(page.getHistory().getEventsList());
      request.setNextPageToken(page.getNextPageToken());
    } while (!request.getNextPageToken().isEmpty());
    return events;
  }

  /** Every destination row of the mirror (tombstones too) by table and key, with its position. */
  private static Map<String, ResumeToken> positions(Connection connection, String mirror, GeneratorUri uri)
      throws SQLException {
    String schema = "cluster_" + mirror.substring("cluster-".length());
    Map<String, ResumeToken> positions = new HashMap<>();
    for (var namespace : uri.namespaces()) {
      String table = TableNaming.instance().tableFor(namespace);
      try (PreparedStatement statement = connection.prepareStatement(
          "select _id, _position from " + TableNaming.qualified(schema, table));
          ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          positions.put(table + "/" + rows.getString(1), ResumeToken.of(rows.getString(2)));
        }
      }
    }
    return positions;
  }

  /** Consecutive batches' checkpoints never go back. */
  private static void assertCheckpointsOnlyMoveForward(Connection connection, String mirror) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("select batch_id, last_position from"
        + " mongo_cdc.batches where mirror_name = ? and last_position is not null order by batch_id")) {
      statement.setString(1, mirror);
      try (ResultSet rows = statement.executeQuery()) {
        ResumeToken previous = null;
        int batches = 0;
        while (rows.next()) {
          ResumeToken position = ResumeToken.of(rows.getString(2));
          assertTrue(previous == null || position.compareTo(previous) >= 0,
              mirror + ": batch " + rows.getLong(1) + " ends at " + position + ", before the batch ahead of it: "
                  + previous);
          previous = position;
          batches++;
        }
        assertTrue(batches > 1, mirror + " has " + batches + " batches");
      }
    }
  }

  private static boolean delivered(DataSource database, String mirror, ResumeToken last) throws SQLException {
    try (Connection connection = database.getConnection()) {
      try (PreparedStatement failed = connection.prepareStatement(
          "select last_error from mongo_cdc.mirrors where name = ? and status = 'failed'")) {
        failed.setString(1, mirror);
        try (ResultSet row = failed.executeQuery()) {
          if (row.next()) {
            throw new AssertionError("mirror " + mirror + " failed: " + row.getString(1));
          }
        }
      }
      try (PreparedStatement statement = connection.prepareStatement(
          "select resume_token from mongo_cdc.checkpoints where mirror_name = ?")) {
        statement.setString(1, mirror);
        try (ResultSet row = statement.executeQuery()) {
          return row.next() && row.getString(1) != null && ResumeToken.of(row.getString(1)).compareTo(last) >= 0;
        }
      }
    }
  }

  private static long deliveredBatches(DataSource database, String mirror) throws SQLException {
    try (Connection connection = database.getConnection(); PreparedStatement statement = connection.prepareStatement(
        "select count(*) from mongo_cdc.batches where mirror_name = ? and records > 0 and ended_at is not null")) {
      statement.setString(1, mirror);
      try (ResultSet row = statement.executeQuery()) {
        row.next();
        return row.getLong(1);
      }
    }
  }

  private static long count(Connection connection, String query) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(query); ResultSet row = statement.executeQuery()) {
      row.next();
      return row.getLong(1);
    }
  }

  private static Instant instant(Timestamp timestamp) {
    return Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos());
  }

  private void awaitOutput(String identity, String text) throws Exception {
    Path output = logs.resolve(identity + ".out");
    await("'" + text + "' from " + identity,
        () -> Files.exists(output) && Files.readString(output, StandardCharsets.UTF_8).contains(text));
  }

  @FunctionalInterface
  private interface Condition {
    boolean holds() throws Exception;
  }

  private void await(String what, Condition condition) throws Exception {
    awaitUntil(System.nanoTime() + STARTS_WITHIN.toNanos(), what, condition);
  }

  /** Polls a condition until a deadline: what the processes, the server and the catalog show, never a timed guess. */
  private void awaitUntil(long deadline, String what, Condition condition) throws Exception {
    while (!condition.holds()) {
      for (Map.Entry<String, Process> worker : workers.entrySet()) {
        if (!worker.getKey().equals(victim) && !worker.getValue().isAlive()) {
          throw new AssertionError(worker.getKey() + " exited with " + worker.getValue().exitValue()
              + " while waiting for " + what + "\n" + tail(worker.getKey()));
        }
      }
      if (System.nanoTime() > deadline) {
        StringBuilder logs = new StringBuilder();
        workers.keySet().forEach(identity -> logs.append(tail(identity)));
        throw new AssertionError("never saw " + what + "\n" + logs);
      }
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
  }

  /** The end of a worker's output, for a failure's message. */
  private String tail(String identity) {
    try {
      List<String> lines = Files.readAllLines(logs.resolve(identity + ".out"), StandardCharsets.UTF_8);
      return "--- " + identity + "\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()))
          + "\n";
    } catch (IOException e) {
      return "--- " + identity + ": " + e + "\n";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
