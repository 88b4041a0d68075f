package io.mongocdc.cli;

import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.wiring.PortsFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import io.mongocdc.wiring.WorkerWiring;
import io.mongocdc.wiring.WorkerPorts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.InMemoryCatalog;
import io.mongocdc.activities.InMemoryDestination;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.mongocdc.testing.WorkerEnvironment;
import io.temporal.worker.WorkerOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.mongocdc.testing.TestPorts;

/** {@code mongo-cdc worker} in-process: it runs mirrors created with {@code mongo-cdc mirror create}. */
class WorkerCommandTest {

  private static final int EVENTS = 30;

  @TempDir Path directory;

  private final ScriptedChangeStream stream = ScriptedChangeStream.of(Fixtures.orderEvents(EVENTS));
  private final InMemoryDestination destination = new InMemoryDestination();
  private final InMemoryCatalog catalog = new InMemoryCatalog();
  /** The test server only: the worker under test is the command's own. */
  private final WorkerEnvironment server = WorkerEnvironment.start();
  private final CountDownLatch workerStarted = new CountDownLatch(1);
  private final CountDownLatch stopWorker = new CountDownLatch(1);
  private final AtomicReference<String> catalogUrlSeen = new AtomicReference<>();

  private final CliContext context = new CliContext(
      temporal -> server.client,
      new PortsFactory() {
        @Override
        public WorkerPorts create(String catalogUrl, PeerRegistry peers, PostgresSinkOptions sinkOptions) {
          catalogUrlSeen.set(catalogUrl);
          return TestPorts.inMemory().source(new ScriptedSource(new AwaitingStream(stream), Fixtures.BEFORE_EVENTS, peers))
              .destination(destination).checkpoints(catalog).build();
        }

        /** The console's reads: a real catalog, migrated and empty. */
        @Override
        public DataSource catalogReads(String catalogUrl) {
          return EmbeddedPostgresSupport.newCatalogDatabase("worker_console");
        }
      },
      Map.of("MONGO_CDC_PEER_WAREHOUSE_PG", "postgresql://cdc:" + Fixtures.SOURCE_PASSWORD + "@pg1/warehouse"),
      stop -> {
        workerStarted.countDown();
        stopWorker.await();
        stop.run();
      });

  @AfterEach
  void tearDown() {
    stopWorker.countDown();
    server.close();
  }

  private int run(StringWriter out, StringWriter err, String... args) {
    return MongoCdc.commandLine(context).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
  }

  @Test
  void aWorkerRunsTheMirrorsCreatedOnItsTaskQueue() throws Exception {
    Path peers = directory.resolve("peers.properties");
    Files.writeString(peers, "orders-mongo.uri=mongodb://db1.example:27017/?replicaSet=rs0\n");
    StringWriter workerOut = new StringWriter();
    StringWriter workerErr = new StringWriter();
    CompletableFuture<Integer> worker = CompletableFuture.supplyAsync(() -> run(workerOut, workerErr, "worker",
        "--task-queue", "cli-worker", "--catalog-url", "jdbc:postgresql://catalog-db/mongo_cdc", "--peers-file", peers.toString()));
    assertTrue(workerStarted.await(20, TimeUnit.SECONDS), () -> "worker did not start: " + workerErr);
    assertTrue(workerOut.toString().startsWith("worker polling task queue cli-worker in namespace default"), workerOut.toString());
    assertEquals("jdbc:postgresql://catalog-db/mongo_cdc", catalogUrlSeen.get());

    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertEquals(0, run(out, err, "mirror", "create", "orders", "--task-queue", "cli-worker",
        "--source-peer", "orders-mongo", "--destination-peer", "warehouse-pg", "--database", "shop",
        "--collection", "orders", "--batch-size", "10", "--idle-timeout", "1", "--chunk-size", "4"), err.toString());
    catalog.awaitCheckpoint("orders", StreamPosition.after(stream.tokenOf(EVENTS - 1))::equals,
        Duration.ofSeconds(30));
    assertEquals(List.of(1L, 2L, 3L), catalog.batches("orders").stream().limit(3).map(b -> b.batchId()).toList());
    assertEquals(EVENTS, destination.recordsCommitted());

    assertEquals(0, run(out, err, "mirror", "drop", "orders", "--task-queue", "cli-worker"), err.toString());
    stopWorker.countDown();
    assertEquals(0, worker.get(30, TimeUnit.SECONDS), workerErr.toString());
  }

  /** The command's worker classifies what an activity throws raw, as every worker of the wiring does. */
  @Test
  void aRawFailureOfAnActivityReachesTheMirrorClassified() throws Exception {
    catalog.failNextCommit(new io.mongocdc.ports.InvalidMirrorConfigurationException(
        "scripted: the catalog refuses the commit"));
    Path peers = directory.resolve("peers.properties");
    Files.writeString(peers, "orders-mongo.uri=mongodb://db1.example:27017/?replicaSet=rs0\n");
    StringWriter workerErr = new StringWriter();
    CompletableFuture<Integer> worker = CompletableFuture.supplyAsync(() -> run(new StringWriter(), workerErr,
        "worker", "--task-queue", "cli-worker", "--catalog-url", "jdbc:postgresql://catalog-db/mongo_cdc",
        "--peers-file", peers.toString()));
    assertTrue(workerStarted.await(20, TimeUnit.SECONDS), () -> "worker did not start: " + workerErr);
    StringWriter err = new StringWriter();
    assertEquals(0, run(new StringWriter(), err, "mirror", "create", "orders", "--task-queue", "cli-worker",
        "--source-peer", "orders-mongo", "--destination-peer", "warehouse-pg", "--database", "shop",
        "--collection", "orders", "--batch-size", "10", "--idle-timeout", "1", "--no-snapshot"), err.toString());

    io.mongocdc.workflows.model.MirrorStateChange failed =
        catalog.awaitState("orders", s -> s.failureType() != null, Duration.ofSeconds(30));

    assertEquals(io.mongocdc.workflows.model.MirrorPhase.FAILED, failed.phase(), failed::toString);
    assertEquals(io.mongocdc.workflows.FailureTypes.INVALID_CONFIGURATION, failed.failureType());
    assertTrue(failed.lastError().contains("CommitCheckpoint: invalid configuration: scripted: the catalog refuses"
        + " the commit; fix the mirror or the worker's peers, then resume the mirror"), failed.lastError());
    stopWorker.countDown();
    assertEquals(0, worker.get(30, TimeUnit.SECONDS), workerErr.toString());
  }

  @Test
  void theCatalogIsRequired() {
    StringWriter err = new StringWriter();
    assertEquals(ExitCodes.INVALID, run(new StringWriter(), err, "worker"));
    assertEquals("mongo-cdc: the catalog is required: give --catalog-url or set MONGO_CDC_CATALOG_URL\n", err.toString());
  }

  @Test
  void aDecodedBytesBudgetThatCannotWorkIsRejected() {
    StringWriter err = new StringWriter();
    int code = run(new StringWriter(), err, "worker", "--catalog-url", "jdbc:postgresql://catalog-db/mongo_cdc",
        "--max-decoded-bytes-in-flight", "0");
    assertEquals(ExitCodes.INVALID, code);
    assertEquals("mongo-cdc: --max-decoded-bytes-in-flight must be at least 1 byte, got 0\n", err.toString());
    assertEquals(1, workerStarted.getCount(), "the worker never started");
  }

  @Test
  void aBlankIdentityIsRejected() {
    StringWriter blank = new StringWriter();
    assertEquals(ExitCodes.INVALID, run(new StringWriter(), blank, "worker", "--catalog-url",
        "jdbc:postgresql://catalog-db/mongo_cdc", "--identity", " "));
    assertEquals("mongo-cdc: --identity must not be blank\n", blank.toString());
    assertEquals(1, workerStarted.getCount(), "the worker never started");
  }

  @Test
  void aWorkerNamesItselfAndSaysWhenItsWorkflowsAreNotSticky() throws Exception {
    StringWriter workerOut = new StringWriter();
    StringWriter workerErr = new StringWriter();
    CompletableFuture<Integer> worker = CompletableFuture.supplyAsync(() -> run(workerOut, workerErr, "worker",
        "--catalog-url", "jdbc:postgresql://catalog-db/mongo_cdc", "--identity", "worker-7", "--no-sticky-workflows",
        "--max-concurrent-activities", "3"));
    assertTrue(workerStarted.await(20, TimeUnit.SECONDS), () -> "worker did not start: " + workerErr);
    assertTrue(workerOut.toString().startsWith("worker worker-7 polling task queue mongo-cdc in namespace default"),
        workerOut.toString());
    assertTrue(workerOut.toString().contains("; workflows not sticky"), workerOut.toString());
    stopWorker.countDown();
    assertEquals(0, worker.get(30, TimeUnit.SECONDS), workerErr.toString());
  }

  /** Issue 34: pool, lanes and activity slots are one set, and the worker says what it chose. */
  @Test
  void aWorkerSaysHowManyBatchesItsConnectionsServeAndWarnsWhenItsSlotsRunFewer() throws Exception {
    StringWriter workerOut = new StringWriter();
    StringWriter workerErr = new StringWriter();
    CompletableFuture<Integer> worker = CompletableFuture.supplyAsync(() -> run(workerOut, workerErr, "worker",
        "--catalog-url", "jdbc:postgresql://catalog-db/mongo_cdc", "--destination-connections", "14",
        "--apply-connections", "1", "--max-concurrent-activities", "3"));
    assertTrue(workerStarted.await(20, TimeUnit.SECONDS), () -> "worker did not start: " + workerErr);
    stopWorker.countDown();
    assertEquals(0, worker.get(30, TimeUnit.SECONDS), workerErr.toString());
    List<String> lines = workerOut.toString().lines().toList();
    assertTrue(lines.contains("destination: 14 connections per peer, 1 apply lanes per batch: 6 mirrors' batches at"
        + " once per peer, the others take turns"), workerOut.toString());
    assertTrue(lines.contains("WARNING: --max-concurrent-activities 3 runs fewer batches than that: raise it, or lower"
        + " --destination-connections"), workerOut.toString());
  }

  /** Issue 35: a worker serves the mirror console where asked, on localhost, and refuses a port that cannot be. */
  @Test
  void aWorkerServesTheConsoleWhereAsked() throws Exception {
    StringWriter workerOut = new StringWriter();
    StringWriter workerErr = new StringWriter();
    CompletableFuture<Integer> worker = CompletableFuture.supplyAsync(() -> run(workerOut, workerErr, "worker",
        "--catalog-url", "jdbc:postgresql://catalog-db/mongo_cdc", "--console-port", "0", "--console-read-only"));
    assertTrue(workerStarted.await(20, TimeUnit.SECONDS), () -> "worker did not start: " + workerErr);
    Matcher url = Pattern.compile("console: (http://127\\.0\\.0\\.1:\\d+/) \\(read-only\\)").matcher(workerOut.toString());
    assertTrue(url.find(), workerOut.toString());
    HttpResponse<String> overview = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url.group(1)))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, overview.statusCode());
    assertTrue(overview.body().contains("No mirror yet"), overview.body());
    stopWorker.countDown();
    assertEquals(0, worker.get(30, TimeUnit.SECONDS), workerErr.toString());

    StringWriter err = new StringWriter();
    assertEquals(ExitCodes.INVALID, run(new StringWriter(), err, "worker", "--catalog-url",
        "jdbc:postgresql://catalog-db/mongo_cdc", "--console-port", "70000"));
    assertEquals("mongo-cdc: --console-port must be between 0 and 65535, or -1 for no console; got 70000\n",
        err.toString());
  }

  /** Issue 47: the names a console answers to besides its own are host names, refused when they cannot be. */
  @Test
  void anAllowedConsoleHostThatIsNoHostNameIsRefused() {
    StringWriter err = new StringWriter();
    assertEquals(ExitCodes.INVALID, run(new StringWriter(), err, "worker", "--catalog-url",
        "jdbc:postgresql://catalog-db/mongo_cdc", "--console-port", "0", "--console-allowed-hosts",
        "cdc.example.com,http://cdc.example.com/"));
    assertEquals("mongo-cdc: --console-allowed-hosts 'http://cdc.example.com/' is not a host name: give names such as"
        + " cdc.example.com or addresses ([::1] for IPv6), separated by commas\n", err.toString());
  }

  @Test
  void aPoolTooSmallForOneBatchIsRejected() {
    StringWriter err = new StringWriter();
    assertEquals(ExitCodes.INVALID, run(new StringWriter(), err, "worker", "--catalog-url",
        "jdbc:postgresql://catalog-db/mongo_cdc", "--destination-connections", "4"));
    assertEquals("mongo-cdc: --destination-connections must be at least 5 with --apply-connections 2 (a batch's 3 and"
        + " 2 for work outside batches), got 4\n", err.toString());
    assertEquals(1, workerStarted.getCount(), "the worker never started");
  }

  @Test
  void theConcurrencyLimitsReachTheWorkerAndTheBatches() {
    WorkerCommand worker = parsedWorker("--max-concurrent-activities", "3", "--max-concurrent-workflow-tasks", "5",
        "--decode-threads", "1");
    WorkerOptions options = worker.workerOptions();
    assertEquals(3, options.getMaxConcurrentActivityExecutionSize());
    assertEquals(5, options.getMaxConcurrentWorkflowTaskExecutionSize());
    assertEquals(WorkerWiring.MAX_HEARTBEAT_THROTTLE_INTERVAL, options.getMaxHeartbeatThrottleInterval());
    assertEquals(1, worker.concurrency.tuning(PullTuning.defaults()).decodeThreads());

    WorkerCommand defaults = parsedWorker();
    assertEquals(WorkerWiring.DEFAULT_MAX_CONCURRENT_ACTIVITIES,
        defaults.workerOptions().getMaxConcurrentActivityExecutionSize());
    assertEquals(Runtime.getRuntime().availableProcessors(),
        defaults.concurrency.tuning(PullTuning.defaults()).decodeThreads());
  }

  @Test
  void concurrencyLimitsBelowOneAreRejected() {
    for (String option : List.of("--max-concurrent-activities", "--max-concurrent-workflow-tasks", "--decode-threads")) {
      StringWriter err = new StringWriter();
      int code = run(new StringWriter(), err, "worker", "--catalog-url", "jdbc:postgresql://catalog-db/mongo_cdc",
          option, "0");
      assertEquals(ExitCodes.INVALID, code, option);
      assertEquals("mongo-cdc: " + option + " must be at least 1, got 0\n", err.toString());
    }
    assertEquals(1, workerStarted.getCount(), "the worker never started");
  }

  private WorkerCommand parsedWorker(String... options) {
    List<String> args = new java.util.ArrayList<>(List.of("worker"));
    args.addAll(List.of(options));
    return (WorkerCommand) MongoCdc.commandLine(context).parseArgs(args.toArray(String[]::new))
        .subcommand().commandSpec().userObject();
  }

  @Test
  void anUnreadablePeersFileIsAOneLineError() {
    StringWriter err = new StringWriter();
    int code = run(new StringWriter(), err, "worker", "--catalog-url", "jdbc:postgresql://catalog-db/mongo_cdc",
        "--peers-file", directory.resolve("missing.properties").toString());
    assertEquals(ExitCodes.FAILED, code);
    assertTrue(err.toString().startsWith("mongo-cdc: cannot read the peers file missing.properties"), err.toString());
    assertEquals(1, err.toString().strip().lines().count());
  }
}
