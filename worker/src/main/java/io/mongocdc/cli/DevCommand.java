package io.mongocdc.cli;

import io.mongocdc.dev.DevReport;
import io.mongocdc.dev.DevRun;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.SnapshotSettings;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "dev", mixinStandardHelpOptions = true,
    description = {"Run everything in one process on embedded defaults: the standalone Temporal server, an embedded "
        + "PostgreSQL (catalog and destination), a worker and one mirror named 'dev'.",
        "The mirror streams from --mongo-uri when given, otherwise from a built-in load generator of realistic "
            + "change events. Stops after --events delivered events, or on Ctrl-C, with a summary."})
final class DevCommand implements Callable<Integer> {

  private final CliContext context;

  @Option(names = "--temporal-port", defaultValue = "7233",
      description = "Port of the in-process Temporal server, for the Temporal CLI (default: ${DEFAULT-VALUE}).")
  int temporalPort;

  @Option(names = "--metrics-port", defaultValue = "9464",
      description = "Port of the Prometheus endpoint /metrics, or -1 for none (default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(names = "--mongo-uri", defaultValue = "${env:MONGO_CDC_DEV_MONGO_URI}",
      description = "A MongoDB replica set to stream from instead of the generator (env MONGO_CDC_DEV_MONGO_URI).")
  String mongoUri;

  @Option(names = "--database", defaultValue = "demo", description = "With --mongo-uri: the database (default: ${DEFAULT-VALUE}).")
  String database;

  @Option(names = "--collection", paramLabel = "NAME",
      description = "With --mongo-uri: a collection to mirror (repeat it).")
  List<String> collections = List.of();

  @Option(names = "--events", defaultValue = "0",
      description = "Generator: events to make; the run ends once all are delivered (0: run until Ctrl-C).")
  long events;

  @Option(names = "--rate", defaultValue = "5000",
      description = "Generator: events per second, 0 for as fast as the mirror takes them (default: ${DEFAULT-VALUE}).")
  int rate;

  @Option(names = "--seed", defaultValue = "42", description = "Generator: random seed (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--initial-documents", defaultValue = "1000",
      description = "Generator: documents each collection holds before the first event, which the snapshot copies "
          + "(at most 10000, the generator's key space; default: ${DEFAULT-VALUE}).")
  int initialDocuments;

  @Option(names = "--poison-events", defaultValue = "0", paramLabel = "N",
      description = "Generator: make N inserts whose _id the destination cannot hold (3 000-character strings), "
          + "to see poisonEventPolicy at work; sets the policy to QUARANTINE unless --poison-event-policy says "
          + "otherwise (default: ${DEFAULT-VALUE}).")
  int poisonEvents;

  @Option(names = "--report", paramLabel = "FILE", description = "Write the run's figures as JSON to FILE.")
  Path report;

  @Option(names = "--headless", description = "No progress bar (for scripts and tests).")
  boolean headless;

  @Mixin SettingsOptions settings;

  @Mixin ApplyOptions apply;

  @Spec CommandSpec spec;

  DevCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws Exception {
    if (events < 0 || rate < 0 || initialDocuments < 0 || poisonEvents < 0) {
      throw new CliException("--events, --rate, --initial-documents and --poison-events must not be negative",
          ExitCodes.INVALID);
    }
    if (poisonEvents > 0 && mongoUri != null) {
      throw new CliException("--poison-events feeds the generator; it cannot be used with --mongo-uri", ExitCodes.INVALID);
    }
    if (mongoUri != null && collections.isEmpty()) {
      throw new CliException("with --mongo-uri, name at least one --collection", ExitCodes.INVALID);
    }
    MirrorSettings chosen = settings.applyTo(devDefaults(poisonEvents > 0 ? "QUARANTINE" : "FAIL"));
    PrintWriter out = spec.commandLine().getOut();
    DevRun run = new DevRun(new DevRun.Options(temporalPort, metricsPort, mongoUri, database, collections, events, rate,
        seed, initialDocuments, report, headless, chosen, apply.sinkOptions(), poisonEvents), out);

    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch finished = new CountDownLatch(1);
    Thread signalWaiter = new Thread(() -> {
      try {
        context.shutdown().runUntilStopped(() -> {
          stop.countDown();
          try {
            // Ctrl-C: give the run the time to print its summary and stop the stack.
            finished.await(60, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "mongo-cdc-dev-signal");
    signalWaiter.setDaemon(true);
    signalWaiter.start();
    try {
      DevReport result = run.run(stop);
      return Boolean.FALSE.equals(result.destinationMatchesSource()) ? ExitCodes.FAILED : ExitCodes.OK;
    } finally {
      finished.countDown();
      signalWaiter.interrupt();
    }
  }

  /** Small batches and snapshot partitions, so a short run shows several of each. */
  private static MirrorSettings devDefaults(String poisonEventPolicy) {
    MirrorSettings defaults = MirrorSettings.defaults();
    return new MirrorSettings(20_000, 2, 10, defaults.decodeWorkers(), defaults.chunkSize(),
        defaults.excludedOperations(), defaults.controlEventPolicy(), defaults.continueAsNewEveryBatches(),
        defaults.splitLargeEvents(), new SnapshotSettings(true, 250, 4, null),
        poisonEventPolicy);
  }
}
