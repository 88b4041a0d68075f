package io.mongocdc.cli;

import io.mongocdc.devtools.DevClusterHost;
import io.mongocdc.devtools.EmbeddedPostgresBinaries;
import io.mongocdc.devtools.generator.GeneratorUri;
import io.mongocdc.ports.ConfiguredPeerRegistry;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.privacy.HashKey;
import io.mongocdc.devtools.DevReport;
import io.mongocdc.devtools.DevRun;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.PoisonEventPolicy;
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
            + "change events. Stops after --events delivered events, or on Ctrl-C, with a summary.",
        "With --workers 0 it is a cluster host: the server and the database only, a peers file with a generator "
            + "peer, --mirrors mirrors, and the 'mongo-cdc worker' command to start workers in other processes; it "
            + "checks every mirror once all events are delivered (see docs/operations.md, Running a cluster)."})
final class DevCommand implements Callable<Integer> {

  private final CliContext context;

  @Option(names = "--temporal-port", defaultValue = "7233",
      description = "Port of the in-process Temporal server, for the Temporal CLI (default: ${DEFAULT-VALUE}).")
  int temporalPort;

  @Option(names = "--metrics-port", defaultValue = "9464",
      description = "Port of the Prometheus endpoint /metrics, or -1 for none (default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(names = "--console-port", paramLabel = "PORT", defaultValue = "8088",
      description = "Port of the mirror console, or -1 for none (default: ${DEFAULT-VALUE}).")
  int consolePort;

  @Mixin ConsoleOptions console;

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
          + "(at most the key space; default: ${DEFAULT-VALUE}).")
  int initialDocuments;

  @Option(names = "--key-space", paramLabel = "N",
      description = "Generator: documents per collection at most, 1 to " + GeneratorUri.MAX_KEY_SPACE + "; documents "
          + "are made from the seed and their key, not stored, so memory does not grow with it (default: 10000, or "
          + "twice --initial-documents when that is more).")
  Integer keySpace;

  @Option(names = "--poison-events", defaultValue = "0", paramLabel = "N",
      description = "Generator: make N inserts whose _id the destination cannot hold (3 000-character strings), "
          + "to see poisonEventPolicy at work; sets the policy to QUARANTINE unless --poison-event-policy says "
          + "otherwise (default: ${DEFAULT-VALUE}).")
  int poisonEvents;

  @Option(names = "--verify",
      description = "At the end, verify the destination against the source as 'mongo-cdc mirror verify' does, and "
          + "report what differs.")
  boolean verify;

  @Option(names = "--tamper", defaultValue = "0", paramLabel = "N",
      description = "Before verifying, alter N destination rows behind the mirror's back (in turn a document changed,"
          + " a row deleted, a row added); implies --verify (default: ${DEFAULT-VALUE}).")
  int tamper;

  @Option(names = "--repair", description = "Verify with repair: re-copy what differs (implies --verify).")
  boolean repair;

  @Option(names = "--workers", defaultValue = "1", paramLabel = "N",
      description = "Workers in this process: 1 (everything in one process), or 0 for a cluster host whose workers are"
          + " 'mongo-cdc worker' processes (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--mirrors", defaultValue = "1", paramLabel = "M",
      description = "With --workers 0: mirrors to create, dev-1 ... dev-M, each from the generator into its own schema"
          + " (dev_1 ...) (default: ${DEFAULT-VALUE}).")
  int mirrors;

  @Option(names = "--generator-collections", defaultValue = "3", paramLabel = "N",
      description = "With --workers 0: collections the generator writes to, each mirror mirroring all of them: orders,"
          + " users, products, then orders_2, users_2 ... (1 to " + GeneratorUri.MAX_COLLECTIONS
          + "; default: ${DEFAULT-VALUE}).")
  int generatorCollections;

  @Option(names = "--peers-file", paramLabel = "FILE",
      description = "With --workers 0: where to write the workers' peers file (default: a new file in the temporary"
          + " directory).")
  Path peersFile;

  @Option(names = "--report", paramLabel = "FILE", description = "Write the run's figures as JSON to FILE.")
  Path report;

  @Option(names = "--headless", description = "No progress bar (for scripts and tests).")
  boolean headless;

  @Mixin SettingsOptions settings;

  @Mixin ApplyOptions apply;

  @Spec CommandSpec spec;

  /** Where the embedded PostgreSQL's binaries are looked for: this jar; a test gives a loader without them. */
  ClassLoader binaries = DevCommand.class.getClassLoader();

  DevCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws Exception {
    if (!EmbeddedPostgresBinaries.bundled(binaries)) {
      throw new CliException(EmbeddedPostgresBinaries.MISSING, ExitCodes.FAILED);
    }
    if (events < 0 || rate < 0 || initialDocuments < 0 || poisonEvents < 0 || tamper < 0) {
      throw new CliException("--events, --rate, --initial-documents, --poison-events and --tamper must not be negative",
          ExitCodes.INVALID);
    }
    boolean verifying = verify || tamper > 0 || repair;
    if (workers == 0 && verifying) {
      throw new CliException("--verify, --tamper and --repair are for one process (--workers 1); on a cluster host"
          + " run 'mongo-cdc mirror verify' per mirror", ExitCodes.INVALID);
    }
    if (poisonEvents > 0 && mongoUri != null) {
      throw new CliException("--poison-events feeds the generator; it cannot be used with --mongo-uri", ExitCodes.INVALID);
    }
    if (keySpace != null && mongoUri != null) {
      throw new CliException("--key-space sizes the generator's collections; it cannot be used with --mongo-uri",
          ExitCodes.INVALID);
    }
    int generatorKeySpace = generatorKeySpace();
    if (mongoUri != null && collections.isEmpty()) {
      throw new CliException("with --mongo-uri, name at least one --collection", ExitCodes.INVALID);
    }
    if (workers != 0 && workers != 1) {
      throw new CliException("--workers must be 1 (a worker in this process) or 0 (a cluster host for worker"
          + " processes), got " + workers, ExitCodes.INVALID);
    }
    if (workers == 1 && (mirrors != 1 || peersFile != null || generatorCollections != 3)) {
      throw new CliException("--mirrors, --generator-collections and --peers-file are for a cluster host (--workers 0)",
          ExitCodes.INVALID);
    }
    if (workers == 0) {
      if (mongoUri != null || poisonEvents > 0) {
        throw new CliException("a cluster host (--workers 0) feeds its mirrors from the generator: --mongo-uri and"
            + " --poison-events are for one process", ExitCodes.INVALID);
      }
      if (mirrors < 1 || mirrors > 100) {
        throw new CliException("--mirrors must be from 1 to 100, got " + mirrors, ExitCodes.INVALID);
      }
      if (generatorCollections < 1 || generatorCollections > GeneratorUri.MAX_COLLECTIONS) {
        throw new CliException("--generator-collections must be from 1 to " + GeneratorUri.MAX_COLLECTIONS + ", got "
            + generatorCollections, ExitCodes.INVALID);
      }
    }
    MirrorSettings chosen = settings.applyTo(devDefaults(poisonEvents > 0 ? PoisonEventPolicy.QUARANTINE : PoisonEventPolicy.FAIL,
        initialDocuments), mirroredCollections());
    PrintWriter out = spec.commandLine().getOut();
    // A key always, so hash rules added by an edit work as well as those given here.
    HashKey fieldHashKey = workers == 0 ? null : devHashKey(out);
    Run run = workers == 0
        ? stop -> {
          DevClusterHost.ClusterReport result = new DevClusterHost(new DevClusterHost.Options(temporalPort, mirrors,
              generatorCollections, events, rate, seed, initialDocuments, generatorKeySpace, peersFile, report, headless, chosen,
              workerCommand()), out).run(stop);
          return Boolean.FALSE.equals(result.destinationMatchesSource()) ? ExitCodes.FAILED : ExitCodes.OK;
        }
        : stop -> {
          DevReport result = new DevRun(new DevRun.Options(temporalPort, metricsPort, mongoUri, database, collections,
              events, rate, seed, initialDocuments, generatorKeySpace, report, headless, chosen, apply.sinkOptions(), poisonEvents,
              verifying, tamper, repair, fieldHashKey, console.settings(consolePort)), out)
              .run(stop);
          return Boolean.FALSE.equals(result.destinationMatchesSource()) ? ExitCodes.FAILED : ExitCodes.OK;
        };

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
      return run.run(stop);
    } finally {
      finished.countDown();
      signalWaiter.interrupt();
    }
  }

  /**
   * The generator's key space: {@code --key-space}, or by default 10 000, or twice the initial
   * documents when that is more (capped at the largest), so inserts have room.
   *
   * @throws CliException if it is out of range or smaller than the initial documents
   */
  private int generatorKeySpace() {
    if (keySpace != null && (keySpace < 1 || keySpace > GeneratorUri.MAX_KEY_SPACE)) {
      throw new CliException("--key-space must be from 1 to " + GeneratorUri.MAX_KEY_SPACE + ", got " + keySpace,
          ExitCodes.INVALID);
    }
    if (keySpace == null && initialDocuments > GeneratorUri.MAX_KEY_SPACE) {
      throw new CliException("--initial-documents must be at most " + GeneratorUri.MAX_KEY_SPACE
          + " (the generator's largest key space), got " + initialDocuments, ExitCodes.INVALID);
    }
    if (keySpace != null && initialDocuments > keySpace) {
      throw new CliException("--initial-documents must be at most --key-space (" + keySpace + "), got "
          + initialDocuments, ExitCodes.INVALID);
    }
    return keySpace != null ? keySpace
        : (int) Math.min(GeneratorUri.MAX_KEY_SPACE, Math.max(10_000, 2L * initialDocuments));
  }

  /** One dev session until done or stopped; returns the exit code. */
  @FunctionalInterface
  private interface Run {
    int run(CountDownLatch stop) throws Exception;
  }

  /**
   * The key of the run's hash rules: the worker's own, read as a worker reads it from the
   * environment, if set, so hashes can be compared with another run's; else one made for this run
   * alone. Only its fingerprint is printed.
   */
  private HashKey devHashKey(PrintWriter out) {
    HashKey given;
    try {
      given = ConfiguredPeerRegistry.load(null, context.environment()).fieldHashKey();
    } catch (InvalidMirrorConfigurationException e) {
      throw new CliException(e.getMessage(), ExitCodes.INVALID);
    }
    if (given != null) {
      out.printf("field hash key: from %s (fingerprint %s)%n", HashKey.ENVIRONMENT_VARIABLE, given.fingerprint());
      return given;
    }
    HashKey key = HashKey.random("dev's key");
    out.printf("field hash key: made for this run (fingerprint %s); set %s to hash with a key of your own%n",
        key.fingerprint(), HashKey.ENVIRONMENT_VARIABLE);
    return key;
  }

  /** Dev's smallest snapshot partition, in documents. */
  static final int LEAST_PARTITION_DOCUMENTS = 250;
  /** Dev copies a collection of more than 16 x 250 initial documents in this many partitions. */
  static final int PARTITIONS_PER_COLLECTION = 16;

  /** How to start this program's worker: {@code java -jar <this jar>} when run from it. */
  private static String workerCommand() {
    try {
      Path location = Path.of(DevCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (location.getFileName().toString().endsWith(".jar")) {
        return "java -jar " + location.toAbsolutePath().normalize();
      }
    } catch (Exception e) {
      // Not from a jar: the installed command's name.
    }
    return "mongo-cdc";
  }

  /** The collections the mirror (each mirror of a cluster host) replicates: the generator's, or those named. */
  private List<String> mirroredCollections() {
    return mongoUri != null ? collections
        : GeneratorUri.parse("generator:demo?collections=" + (workers == 0 ? generatorCollections : 3)).collectionNames();
  }

  /**
   * Small batches and snapshot partitions, so a short run shows several of each: partitions of
   * {@value #LEAST_PARTITION_DOCUMENTS} documents, or of a {@value #PARTITIONS_PER_COLLECTION}th of
   * {@code --initial-documents} when that is more. Each partition costs about the same fixed time
   * (its activity, catalog rows, a workflow task), so a million documents in partitions of 250
   * spent most of their copy on that.
   */
  static MirrorSettings devDefaults(PoisonEventPolicy poisonEventPolicy, int initialDocuments) {
    return MirrorSettings.defaults()
        .with(MirrorSettings.BATCH_SIZE, 20_000)
        .with(MirrorSettings.IDLE_TIMEOUT_SECONDS, 2)
        .with(MirrorSettings.MAX_BATCH_DURATION_SECONDS, 10)
        .with(MirrorSettings.SNAPSHOT_DOCUMENTS_PER_PARTITION,
            Math.max(LEAST_PARTITION_DOCUMENTS, (initialDocuments + PARTITIONS_PER_COLLECTION - 1) / PARTITIONS_PER_COLLECTION))
        .with(MirrorSettings.POISON_EVENT_POLICY, poisonEventPolicy);
  }
}
