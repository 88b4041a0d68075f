package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.MirrorPhase;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mongo-cdc dev} as a process, stopped by a signal in each state it can be in: it prints
 * its summary and writes its report within 15 s, and a second signal ends it at once. Runs after
 * {@code package} (it starts the built jar). The signal is SIGTERM, which the JVM's
 * {@code Process.destroy} sends and which dev handles as Ctrl-C's SIGINT: a process started in
 * the background inherits SIGINT ignored, so SIGINT could not be relied on here.
 */
class DevShutdownIT {

  private static final Path JAR = Path.of("target", "mongo-cdc.jar");
  private static final Duration STARTS_WITHIN = Duration.ofSeconds(90);
  private static final Duration STOPS_WITHIN = Duration.ofSeconds(15);

  @TempDir Path directory;
  private Process dev;
  private WorkflowServiceStubs service;

  @AfterEach
  void stop() {
    if (dev != null && dev.isAlive()) {
      dev.destroyForcibly();
    }
    if (service != null) {
      service.shutdownNow();
    }
  }

  @Test
  void aSignalWhileRunningPrintsTheSummaryAndWritesTheReport() throws Exception {
    Path report = directory.resolve("report.json");
    Path output = start(report);
    awaitOutput(output, "records delivered"); // a batch committed

    long signalled = System.nanoTime();
    dev.destroy();

    assertTrue(dev.waitFor(STOPS_WITHIN.toSeconds(), TimeUnit.SECONDS), "still running 15 s after the signal");
    String out = Files.readString(output);
    assertTrue(out.contains("summary: "), out);
    JsonNode figures = new ObjectMapper().readTree(Files.readString(report));
    assertTrue(figures.get("destinationMatchesSource").asBoolean(), figures.toString());
    assertEquals(0, dev.exitValue(), out);
    assertTrue(System.nanoTime() - signalled < STOPS_WITHIN.toNanos());
  }

  @Test
  void aSignalWhilePausedStillPrintsTheSummaryAndWritesTheReport() throws Exception {
    Path report = directory.resolve("report.json");
    int temporalPort = freePort();
    Path output = start(report, "--temporal-port", String.valueOf(temporalPort));
    awaitOutput(output, "records delivered");
    service = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget("localhost:" + temporalPort).build());
    CdcFlowWorkflow mirror = WorkflowClient.newInstance(service).newWorkflowStub(CdcFlowWorkflow.class, "mirror-dev");
    mirror.pause(null);
    await("the mirror to pause", () -> mirror.status().state() == MirrorPhase.PAUSED);

    dev.destroy();

    assertTrue(dev.waitFor(STOPS_WITHIN.toSeconds(), TimeUnit.SECONDS), "still running 15 s after the signal");
    String out = Files.readString(output);
    assertTrue(out.contains("summary: "), out);
    assertTrue(Files.exists(report), out);
  }

  @Test
  void aSecondSignalEndsTheProcessAtOnce() throws Exception {
    Path output = start(directory.resolve("report.json"));
    awaitOutput(output, "is running");

    dev.destroy();
    awaitOutput(output, "stopping");
    dev.destroy();

    assertTrue(dev.waitFor(5, TimeUnit.SECONDS), "a second signal did not end it");
    assertEquals(CliContext.EXIT_ON_SECOND_SIGNAL, dev.exitValue());
  }

  private Path start(Path report, String... extra) throws IOException {
    assertTrue(Files.exists(JAR), "build the jar first (mvn package): " + JAR.toAbsolutePath());
    Path output = directory.resolve("dev.out");
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new java.util.ArrayList<>(List.of(java, "-jar", JAR.toString(), "dev", "--headless",
        "--rate", "2000", "--batch-size", "2000", "--metrics-port", "-1", "--report", report.toString()));
    if (extra.length == 0) {
      command.addAll(List.of("--temporal-port", String.valueOf(freePort())));
    }
    command.addAll(List.of(extra));
    dev = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    return output;
  }

  private void awaitOutput(Path output, String text) throws Exception {
    await("'" + text + "' in the output", () -> Files.readString(output, StandardCharsets.UTF_8).contains(text));
  }

  @FunctionalInterface
  private interface Condition {
    boolean holds() throws Exception;
  }

  /** Polls a condition with a deadline: what the process shows, never a timed guess. */
  private void await(String what, Condition condition) throws Exception {
    long deadline = System.nanoTime() + STARTS_WITHIN.toNanos();
    while (!condition.holds()) {
      if (!dev.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("never saw " + what + (dev.isAlive() ? "" : "; dev exited with " + dev.exitValue()));
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
