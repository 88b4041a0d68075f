package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.activities.Fixtures;
import io.mongocdc.activities.InMemoryCatalog;
import io.mongocdc.activities.InMemoryDestination;
import io.mongocdc.testing.ScriptedSource;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.source.scripted.ScriptedChangeStream;
import io.temporal.testserver.TestServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import io.mongocdc.testing.TestPorts;

/**
 * {@code mongo-cdc worker} and {@code mongo-cdc mirror ...} over real gRPC, against the
 * standalone Temporal test server listening on a port.
 */
class StandaloneServerTest {

  private static final int EVENTS = 25;

  private final ScriptedChangeStream stream = ScriptedChangeStream.of(Fixtures.orderEvents(EVENTS));
  private final InMemoryDestination destination = new InMemoryDestination();
  private final InMemoryCatalog catalog = new InMemoryCatalog();
  private final CountDownLatch workerStarted = new CountDownLatch(1);
  private final CountDownLatch stopWorker = new CountDownLatch(1);
  private final int port = freePort();
  private final TestServer.PortBoundTestServer server = TestServer.createPortBoundServer(port, true); // real time: no skipping
  private final String address = "localhost:" + port;

  private final CliContext context = new CliContext(
      ClientFactory.grpc(),
      (catalogUrl, peers, sinkOptions) -> TestPorts.inMemory()
          .source(new ScriptedSource(new AwaitingStream(stream), Fixtures.BEFORE_EVENTS, peers))
          .destination(destination).checkpoints(catalog).build(),
      Map.of("MONGO_CDC_PEER_ORDERS_MONGO", Fixtures.SOURCE_URI, "MONGO_CDC_PEER_WAREHOUSE_PG", "postgresql://pg1/wh"),
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

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private String ok(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = MongoCdc.commandLine(context).setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
    assertEquals(0, code, () -> String.join(" ", args) + " failed: " + err);
    return out.toString();
  }

  @Test
  void operatesAMirrorThroughTheTemporalFrontend() throws Exception {
    StringWriter workerErr = new StringWriter();
    CompletableFuture<Integer> worker = CompletableFuture.supplyAsync(() -> MongoCdc.commandLine(context)
        .setOut(new PrintWriter(new StringWriter(), true)).setErr(new PrintWriter(workerErr, true))
        .execute("worker", "--temporal-address", address, "--catalog-url", "jdbc:postgresql://catalog-db/mongo_cdc"));
    assertTrue(workerStarted.await(20, TimeUnit.SECONDS), () -> "worker did not start: " + workerErr);

    ok("mirror", "create", "orders", "--temporal-address", address, "--source-peer", "orders-mongo",
        "--destination-peer", "warehouse-pg", "--database", "shop", "--collection", "orders",
        "--batch-size", "10", "--idle-timeout", "1");
    catalog.awaitCheckpoint("orders", StreamPosition.after(stream.tokenOf(EVENTS - 1))::equals,
        Duration.ofSeconds(30));

    ok("mirror", "edit", "orders", "--temporal-address", address, "--chunk-size", "16");
    ok("mirror", "pause", "orders", "--temporal-address", address);
    JsonNode status = new ObjectMapper().readTree(ok("mirror", "status", "orders", "--temporal-address", address, "--json"));
    assertEquals(EVENTS, status.get("totals").get("recordsDelivered").asLong());
    assertTrue(status.get("pausedReason").asText().contains("paused by the operator"), status.toString());
    assertTrue(!status.toString().contains(Fixtures.SOURCE_PASSWORD));

    ok("mirror", "drop", "orders", "--temporal-address", address);
    stopWorker.countDown();
    assertEquals(0, worker.get(30, TimeUnit.SECONDS), workerErr.toString());
    assertEquals(EVENTS, destination.recordsCommitted());
  }
}
