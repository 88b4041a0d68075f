package io.mongocdc.cli;

import io.mongocdc.wiring.PortsFactory;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;
import sun.misc.SignalHandler;

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

    /**
     * Until the first SIGINT (Ctrl-C) or SIGTERM, then runs {@code stop} while the JVM keeps
     * running, so a graceful stop can take the time it needs with everything it uses still up
     * (shutdown hooks of libraries, such as the embedded PostgreSQL's, have not run). A second
     * signal ends the process at once. Where signals cannot be handled (a JVM started with
     * {@code -Xrs}), as {@link #jvmExit}.
     */
    static ShutdownSignal signals() {
      return stop -> {
        CountDownLatch first = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        SignalHandler handler = signal -> {
          if (stopping.compareAndSet(false, true)) {
            first.countDown();
          } else {
            Runtime.getRuntime().halt(EXIT_ON_SECOND_SIGNAL);
          }
        };
        try {
          Signal.handle(new Signal("INT"), handler);
          Signal.handle(new Signal("TERM"), handler);
        } catch (IllegalArgumentException signalsUnavailable) {
          jvmExit().runUntilStopped(stop);
          return;
        }
        first.await();
        stop.run();
      };
    }
  }

  /** The exit status of a process ended by a second Ctrl-C: 128 + SIGINT, as shells report it. */
  static final int EXIT_ON_SECOND_SIGNAL = 130;

  public static CliContext production() {
    return new CliContext(ClientFactory.grpc(), PortsFactory.installed(), System.getenv(), ShutdownSignal.signals());
  }
}
