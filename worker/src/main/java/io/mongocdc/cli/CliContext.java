package io.mongocdc.cli;

import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * What the commands need from the outside world, so tests can run them in-process.
 *
 * @param clients connects to Temporal
 * @param ports builds the worker's ports
 * @param environment the process environment (peer credentials)
 * @param shutdown runs the {@code worker} command until the process should stop
 */
public record CliContext(
    ClientFactory clients, PortsFactory ports, Map<String, String> environment, ShutdownSignal shutdown) {

  /** Keeps the worker running until the process should stop, then runs {@code stop}. */
  @FunctionalInterface
  public interface ShutdownSignal {
    void runUntilStopped(Runnable stop) throws InterruptedException;

    /** Until the JVM is asked to exit (SIGTERM, Ctrl-C): the hook stops the worker gracefully. */
    static ShutdownSignal jvmExit() {
      return stop -> {
        Runtime.getRuntime().addShutdownHook(new Thread(stop, "mongo-cdc-shutdown"));
        new CountDownLatch(1).await();
      };
    }
  }

  public static CliContext production() {
    return new CliContext(ClientFactory.grpc(), PortsFactory.installed(), System.getenv(), ShutdownSignal.jvmExit());
  }
}
