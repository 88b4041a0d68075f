package io.mongocdc.cli;

import io.mongocdc.wiring.PortsFactory;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code mongo-cdc dev --workers 0}, a cluster host: its mirrors run on a worker started as it
 * says (here the {@code worker} command in this JVM), and it checks them against the generator.
 */
class DevClusterHostTest {

  private static final Duration WITHIN = Duration.ofSeconds(120);

  @TempDir Path directory;

  private static CommandLine cli(CliContext.ShutdownSignal shutdown, StringWriter out) {
    CommandLine cli = MongoCdc.commandLine(new CliContext(ClientFactory.grpc(), PortsFactory.installed(), Map.of(),
        shutdown));
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(out, true));
    return cli;
  }

  private static CliContext.ShutdownSignal on(CountDownLatch signal) {
    return stop -> {
      signal.await();
      stop.run();
    };
  }

  @Test
  void itsMirrorsRunOnTheWorkerItPrintsAndMatchTheGenerator() throws Exception {
    Path peers = directory.resolve("peers.properties");
    Path report = directory.resolve("report.json");
    StringWriter hostOut = new StringWriter();
    CountDownLatch hostStop = new CountDownLatch(1);
    int temporalPort = freePort();
    CompletableFuture<Integer> host = CompletableFuture.supplyAsync(() -> cli(on(hostStop), hostOut).execute("dev",
        "--workers", "0", "--mirrors", "2", "--events", "1500", "--rate", "0", "--initial-documents", "60",
        "--headless", "--temporal-port", String.valueOf(temporalPort), "--peers-file", peers.toString(),
        "--report", report.toString()));
    StringWriter workerOut = new StringWriter();
    CountDownLatch workerStop = new CountDownLatch(1);
    CompletableFuture<Integer> worker = null;
    try {
      String printed = awaitLine(hostOut, host, " worker --temporal-address ");
      // The printed command, as a user would paste it: java -jar <jar> (here mongo-cdc) worker ...
      List<String> args = new ArrayList<>();
      for (String word : printed.substring(printed.indexOf(" worker ") + 1).split(" ")) {
        args.add(word.replace("'", ""));
      }
      assertTrue(args.containsAll(List.of("--no-sticky-workflows", "--peers-file", peers.toString())), printed);
      worker = CompletableFuture.supplyAsync(() -> cli(on(workerStop), workerOut).execute(args.toArray(String[]::new)));

      assertEquals(0, host.get(WITHIN.toSeconds(), TimeUnit.SECONDS), hostOut + "\n--- worker\n" + workerOut);
    } finally {
      hostStop.countDown();
      workerStop.countDown();
      if (worker != null) {
        worker.get(60, TimeUnit.SECONDS);
      }
      host.get(60, TimeUnit.SECONDS);
    }
    String out = hostOut.toString();
    assertTrue(out.contains("summary: 2 mirrors, 1,500 events each; the destination matches the generator in every"
        + " mirror"), out);
    assertTrue(out.contains("mirror dev-2 (schema dev_2): 1,500 records delivered"), out);
    String peersText = Files.readString(peers);
    assertTrue(peersText.contains("\ngenerator.uri=generator:demo?seed=42&events=1500&rate=0&collections=3"
        + "&initialDocuments=60&"), peersText);
    assertTrue(peersText.contains("\nembedded-postgres.uri=jdbc:postgresql://localhost:"), peersText);
    JsonNode figures = new ObjectMapper().readTree(Files.readString(report));
    assertTrue(figures.get("destinationMatchesSource").asBoolean(), figures.toString());
    assertEquals(2, figures.get("results").size());
    assertTrue(figures.get("streamingSeconds").asDouble() > 0, figures.toString());
    assertEquals(Math.round(3_000 / figures.get("streamingSeconds").asDouble()), figures.get("eventsPerSecond").asLong(),
        figures.toString());
    assertTrue(out.contains("streaming: "), out);
    assertTrue(workerOut.toString().startsWith("worker worker-1 polling task queue mongo-cdc"), workerOut.toString());
  }

  @Test
  void optionsForOneProcessOrForAClusterHostAreNotMixed() {
    StringWriter out = new StringWriter();
    CountDownLatch never = new CountDownLatch(1);
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--workers", "2"));
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--mirrors", "3"));
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--workers", "0", "--mirrors", "0"));
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--workers", "0", "--poison-events", "1"));
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--generator-collections", "5"));
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--workers", "0", "--generator-collections",
        "201"));
    assertEquals(List.of(
        "mongo-cdc: --workers must be 1 (a worker in this process) or 0 (a cluster host for worker processes), got 2",
        "mongo-cdc: --mirrors, --generator-collections and --peers-file are for a cluster host (--workers 0)",
        "mongo-cdc: --mirrors must be from 1 to 100, got 0",
        "mongo-cdc: a cluster host (--workers 0) feeds its mirrors from the generator: --mongo-uri and --poison-events"
            + " are for one process",
        "mongo-cdc: --mirrors, --generator-collections and --peers-file are for a cluster host (--workers 0)",
        "mongo-cdc: --generator-collections must be from 1 to 200, got 201"), out.toString().lines().toList());
  }

  @Test
  void generatorSizesOutOfRangeAreRefusedWithWhatIsWrong() {
    StringWriter out = new StringWriter();
    CountDownLatch never = new CountDownLatch(1);
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--key-space", "0"));
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--key-space", "100000001"));
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--key-space", "5000", "--initial-documents",
        "5001"));
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--workers", "0", "--initial-documents",
        "100000001"));
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--initial-documents", "-1"));
    assertEquals(ExitCodes.INVALID, cli(on(never), out).execute("dev", "--mongo-uri", "mongodb://localhost",
        "--collection", "orders", "--key-space", "20000"));
    assertEquals(List.of(
        "mongo-cdc: --key-space must be from 1 to 100000000, got 0",
        "mongo-cdc: --key-space must be from 1 to 100000000, got 100000001",
        "mongo-cdc: --initial-documents must be at most --key-space (5000), got 5001",
        "mongo-cdc: --initial-documents must be at most 100000000 (the generator's largest key space), got 100000001",
        "mongo-cdc: --events, --rate, --initial-documents, --poison-events and --tamper must not be negative",
        "mongo-cdc: --key-space sizes the generator's collections; it cannot be used with --mongo-uri"),
        out.toString().lines().toList());
  }

  /** The first line of the output that contains {@code text}, once it is there. */
  private static String awaitLine(StringWriter out, CompletableFuture<Integer> host, String text) {
    long deadline = System.nanoTime() + WITHIN.toNanos();
    while (true) {
      for (String line : out.toString().lines().toList()) {
        if (line.contains(text)) {
          return line;
        }
      }
      if (host.isDone() || System.nanoTime() > deadline) {
        throw new AssertionError("never printed '" + text + "':\n" + out);
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
