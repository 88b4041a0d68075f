package io.mongocdc.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code mongo-cdc dev} from the built jar as a process of its own, its output in a file: started,
 * watched for what it prints, signalled. The signal is SIGTERM, which {@code Process.destroy}
 * sends and which dev handles as Ctrl-C's SIGINT: a process started in the background inherits
 * SIGINT ignored, so SIGINT could not be relied on.
 */
final class DevProcess implements AutoCloseable {

  static final Duration STARTS_WITHIN = Duration.ofSeconds(90);
  /** What the README promises after a signal: the summary and the report, then the end. */
  static final Duration STOPS_WITHIN = Duration.ofSeconds(15);
  private static final Path JAR = Path.of("target", "mongo-cdc.jar");
  /**
   * The JVM options of a dev process, as {@link WorkerClusterIT} starts its workers: C1 only and
   * the serial collector. A dev run lasts seconds; C2's compiler threads and a parallel collector
   * would only take the two cores from the test JVMs beside it.
   */
  static final List<String> JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  final Process process;
  final Path output;

  private DevProcess(Process process, Path output) {
    this.process = process;
    this.output = output;
  }

  /**
   * Starts dev (headless, 2 000 events/s, no documents before the stream: the copy is not what
   * these tests watch, and it took a third of each start) in {@code directory}; a free Temporal
   * port unless {@code extra} names one.
   */
  static DevProcess start(Path directory, Path report, String... extra) throws IOException {
    assertTrue(Files.exists(JAR), "build the jar first (mvn package): " + JAR.toAbsolutePath());
    Path output = directory.resolve("dev.out");
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(List.of(java));
    command.addAll(JVM_OPTIONS);
    command.addAll(List.of("-jar", JAR.toString(), "dev", "--headless",
        "--rate", "2000", "--batch-size", "2000", "--initial-documents", "0", "--metrics-port", "-1", "--console-port", "-1", "--report", report.toString()));
    if (!List.of(extra).contains("--temporal-port")) {
      command.addAll(List.of("--temporal-port", String.valueOf(freePort())));
    }
    command.addAll(List.of(extra));
    return new DevProcess(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start(),
        output);
  }

  String output() throws IOException {
    return Files.readString(output, StandardCharsets.UTF_8);
  }

  void awaitOutput(String text) throws Exception {
    await("'" + text + "' in the output", () -> output().contains(text));
  }

  /** Sends SIGTERM. */
  void signal() {
    process.destroy();
  }

  boolean endsWithin(Duration limit) throws InterruptedException {
    return process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
  }

  @FunctionalInterface
  interface Condition {
    boolean holds() throws Exception;
  }

  /** Polls a condition with a deadline: what the process shows, never a timed guess. */
  void await(String what, Condition condition) throws Exception {
    long deadline = System.nanoTime() + STARTS_WITHIN.toNanos();
    while (!condition.holds()) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new AssertionError("never saw " + what
            + (process.isAlive() ? "" : "; dev exited with " + process.exitValue()));
      }
      LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
