package io.mongocdc.cli;

import io.mongocdc.wiring.PortsFactory;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.PoisonEventPolicy;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.StopRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.mongocdc.testing.PatientServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code mongo-cdc dev} end to end: the whole stack in one process, fed by the load generator. */
class DevCommandTest {

  @TempDir Path directory;

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** A shutdown signal a test triggers, standing in for Ctrl-C. */
  static CliContext.ShutdownSignal on(CountDownLatch ctrlC) {
    return stop -> {
      ctrlC.await();
      stop.run();
    };
  }

  static CommandLine cli(CountDownLatch ctrlC, StringWriter out) {
    CommandLine cli = MongoCdc.commandLine(
        new CliContext(ClientFactory.grpc(), PortsFactory.installed(), Map.of(), on(ctrlC)));
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(out, true));
    return cli;
  }

  /** A million initial documents were copied in 4 000 partitions of 250 per collection, most of the copy's time. */
  @Test
  void devCopiesLargeCollectionsInSixteenPartitionsAndSmallOnesInPartitionsOf250() {
    assertEquals(250, partitionOf(0));
    assertEquals(250, partitionOf(1_000));
    assertEquals(250, partitionOf(4_000));
    assertEquals(313, partitionOf(5_000));
    assertEquals(62_500, partitionOf(1_000_000));
  }

  private static int partitionOf(int initialDocuments) {
    return DevCommand.devDefaults(PoisonEventPolicy.FAIL, initialDocuments).snapshot().documentsPerPartition();
  }

  @Test
  void aHeadlessRunOf20000EventsEndsWithTheDestinationEqualToTheSource() throws Exception {
    Path report = directory.resolve("report.json");
    StringWriter out = new StringWriter();

    int exit = cli(new CountDownLatch(1), out).execute("dev", "--headless", "--events", "20000", "--rate", "0",
        "--batch-size", "5000", "--report", report.toString(), "--temporal-port", String.valueOf(freePort()), "--metrics-port", "-1", "--console-port", "-1");

    assertEquals(0, exit, out.toString());
    JsonNode figures = new ObjectMapper().readTree(Files.readString(report));
    assertTrue(figures.get("destinationMatchesSource").asBoolean(), figures.toString());
    assertEquals(20000, figures.get("sourceEvents").asLong());
    assertEquals(20000, figures.get("deliveredRecords").asLong());
    assertTrue(figures.get("destinationRows").asLong() > 0);
    assertTrue(figures.get("batches").asLong() >= 4, "batches of at most 5000 events");
    assertEquals(figures.get("lastBatchId").asLong(), figures.get("batches").asLong(),
        "the catalog holds one row per batch, numbered from 1");
    assertTrue(figures.get("batchLatencyP99Ms").asLong() >= figures.get("batchLatencyP50Ms").asLong());
    double phase = figures.get("batchPhaseSeconds").asDouble();
    assertTrue(phase > 0, figures.toString());
    assertEquals(20000 / phase, figures.get("eventsPerSecond").asDouble(), 20000 / phase * 0.01,
        "events per second over the batch phase");
    double cores = figures.get("cpuCoresBusy").asDouble();
    assertTrue(cores > 0 && cores <= Runtime.getRuntime().availableProcessors() + 0.5, figures.toString());
    assertTrue(out.toString().contains("LOAD GENERATOR"), "it says plainly that the source is the generator");
    assertTrue(out.toString().contains("--workflow-id mirror-dev --name pause"), out.toString());
    assertTrue(!out.toString().contains("stopping:"), "a run that ended by itself was not stopped: " + out);
    assertTrue(out.toString().contains("MONGO_CDC_PEER_GENERATOR='generator:demo?seed=42&initialDocuments=1000&keySpace=10000'"
        + " mongo-cdc mirror suggest-columns dev --collection orders"), "the generator peer for the CLI: " + out);
  }

  @Test
  void tamperedRowsAreFoundByVerifyAndRepairedSoTheDestinationMatchesAgain() throws Exception {
    Path report = directory.resolve("report.json");
    StringWriter out = new StringWriter();

    int exit = cli(new CountDownLatch(1), out).execute("dev", "--headless", "--events", "3000", "--rate", "0",
        "--tamper", "9", "--repair", "--report", report.toString(), "--temporal-port", String.valueOf(freePort()),
        "--metrics-port", "-1", "--console-port", "-1");

    assertEquals(0, exit, out.toString());
    JsonNode figures = new ObjectMapper().readTree(Files.readString(report));
    JsonNode verify = figures.get("verify");
    assertEquals(9, verify.get("tampered").asInt(), figures.toString());
    assertEquals(9, verify.get("mismatches").asLong(), "exactly the tampered rows differ: " + figures);
    assertEquals(9, verify.get("repaired").asLong(), figures.toString());
    assertEquals(figures.get("snapshotDocuments").asLong() > 0, verify.get("documentsCompared").asLong() > 0);
    assertTrue(verify.get("ranges").asInt() >= 3, "one or more ranges per collection: " + figures);
    assertTrue(verify.get("seconds").asDouble() >= 0, figures.toString());
    assertTrue(figures.get("destinationMatchesSource").asBoolean(), "repaired: " + figures);
    assertTrue(out.toString().contains("3 changed, 3 deleted, 3 added"), out.toString());
  }

  @Test
  void historyForOneGeneratorCollectionKeepsEveryEventOfItAndTheCatalogSaysSo() throws Exception {
    Path report = directory.resolve("history.json");
    StringWriter out = new StringWriter();

    int exit = cli(new CountDownLatch(1), out).execute("dev", "--headless", "--events", "3000", "--rate", "0",
        "--initial-documents", "100", "--history", "orders", "--report", report.toString(), "--temporal-port",
        String.valueOf(freePort()), "--metrics-port", "-1", "--console-port", "-1");

    assertEquals(0, exit, out.toString());
    JsonNode figures = new ObjectMapper().readTree(Files.readString(report));
    assertTrue(figures.get("destinationMatchesSource").asBoolean(), figures.toString());
    long history = figures.get("historyRows").asLong();
    assertTrue(history > 100, "orders' snapshot documents and some of the 3000 events: " + figures);
    assertTrue(history < 3000 + 300, "only orders keeps a history, not users or products: " + figures);
    // The copy runs beside the batches: it also copies the documents inserted while it runs.
    long copiedOrders = history - figures.get("historyRowsReported").asLong();
    assertTrue(copiedOrders >= 100 && copiedOrders <= figures.get("snapshotDocuments").asLong() - 200,
        "orders' copied documents (its 100 and those inserted while it copied), and every row the batches"
            + " reported appending: " + figures);
    assertTrue(out.toString().contains(history + " history rows"), out.toString());
  }

  @Test
  void pauseEditWithAFieldRuleAndResumeThroughATemporalClientWhileItRuns() throws Exception {
    int port = freePort();
    int metricsPort = freePort();
    Path report = directory.resolve("report.json");
    CountDownLatch ctrlC = new CountDownLatch(1);
    StringWriter out = new StringWriter();
    AtomicInteger exit = new AtomicInteger(-1);
    Thread dev = new Thread(() -> exit.set(cli(ctrlC, out).execute("dev", "--headless", "--rate", "3000",
        "--report", report.toString(), "--temporal-port", String.valueOf(port), "--metrics-port",
        String.valueOf(metricsPort), "--console-port", "-1")), "dev");
    dev.start();

    WorkflowServiceStubs service = PatientServiceStubs.to(port);
    try {
      WorkflowClient client = WorkflowClient.newInstance(service);
      CdcFlowWorkflow mirror = awaitWorkflow(client);
      await(mirror, s -> s.state() == MirrorPhase.RUNNING && s.committedBatchId() >= 1);

      mirror.pause(StopRequest.AT_BATCH_BOUNDARY);
      MirrorStatus paused = await(mirror, s -> s.state() == MirrorPhase.PAUSED);
      // A field rule added on the way: the closing comparison must hold the rows to it, not to
      // the rules dev started with (none), once its rewrite has reached the rows written before.
      WorkflowStub.fromTyped(mirror).update("edit", Object.class, Map.of("batchSize", 1234,
          "fieldRules", Map.of("orders", Map.of("exclude", List.of("customer.address")))));
      mirror.resume();
      await(mirror, s -> s.state() == MirrorPhase.RUNNING && s.committedBatchId() > paused.committedBatchId()
          && s.config().settings().batchSize() == 1234);
      try (Connection catalog = DriverManager.getConnection(jdbcUrlIn(out.toString()))) {
        awaitRewriteDone(catalog);
        try (ResultSet addresses = catalog.createStatement().executeQuery(
            "select count(*) from public.\"demo.orders\" where doc->'customer' ? 'address'")) {
          addresses.next();
          assertEquals(0, addresses.getLong(1), "rows written before the rule were rewritten, later ones redacted");
        }
      }

      String metrics = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertTrue(metrics.contains("mongo_cdc_records_delivered_total{mirror=\"dev\"}"), metrics);
      assertTrue(metrics.contains("mongo_cdc_checkpoint_lag_seconds{mirror=\"dev\"}"), metrics);
      assertTrue(metrics.contains("temporal_"), "the Temporal SDK's metrics are served too");
    } finally {
      ctrlC.countDown();
      dev.join(Duration.ofSeconds(100).toMillis());
      service.shutdownNow();
    }

    assertEquals(0, exit.get(), out.toString());
    assertTrue(out.toString().contains("stopping: delivering the events generated so far"), out.toString());
    JsonNode figures = new ObjectMapper().readTree(Files.readString(report));
    assertTrue(figures.get("destinationMatchesSource").asBoolean(), figures.toString());
  }

  /** The catalog's JDBC URL from dev's banner. */
  private static String jdbcUrlIn(String banner) {
    Matcher url = Pattern.compile("jdbc:postgresql://\\S+").matcher(banner);
    assertTrue(url.find(), banner);
    return url.group();
  }

  /** Until the catalog shows a field rule rewrite finished (its rows counted) and none running. */
  private static void awaitRewriteDone(Connection catalog) throws SQLException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      try (ResultSet mirror = catalog.createStatement().executeQuery("select field_rule_rewrite is null"
          + " and field_rule_rewrite_rows is not null from mongo_cdc.mirrors where name = 'dev'")) {
        if (mirror.next() && mirror.getBoolean(1)) {
          return;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the field rule rewrite never finished");
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  static CdcFlowWorkflow awaitWorkflow(WorkflowClient client) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      try {
        CdcFlowWorkflow mirror = client.newWorkflowStub(CdcFlowWorkflow.class, "mirror-dev");
        mirror.status();
        return mirror;
      } catch (RuntimeException notYet) {
        if (System.nanoTime() > deadline) {
          throw notYet;
        }
        Thread.onSpinWait();
      }
    }
  }

  /** Polls the status query until it satisfies the condition: a condition, not a timed guess. */
  static MirrorStatus await(CdcFlowWorkflow mirror, Predicate<MirrorStatus> condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    MirrorStatus status = mirror.status();
    while (!condition.test(status)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("the mirror never got there; its status is " + status);
      }
      status = mirror.status();
    }
    return status;
  }
}
