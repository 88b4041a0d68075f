package io.mongocdc.cli;

import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.wiring.WorkerWiring;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.metrics.PipelineMetrics;
import io.mongocdc.catalog.ConsoleQueries;
import io.mongocdc.console.ConsoleSettings;
import io.mongocdc.console.MirrorConsole;
import io.mongocdc.console.TemporalMirrorActions;
import io.mongocdc.metrics.MirrorHealthMetrics;
import io.mongocdc.metrics.PrometheusEndpoint;
import io.mongocdc.secrets.Redaction;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Runs the mirror workflows and their activities until the process is stopped. */
@Command(name = "worker", mixinStandardHelpOptions = true,
    description = "Run a worker: the mirror workflows and their activities, until stopped (SIGTERM or Ctrl-C).")
final class WorkerCommand implements Callable<Integer> {

  /** How long a starting worker waits for the Temporal frontend to answer. */
  static final Duration TEMPORAL_WAIT = Duration.ofSeconds(60);

  private final CliContext context;

  @Mixin TemporalOptions temporal;

  @Option(names = "--catalog-url", paramLabel = "JDBC_URL",
      defaultValue = "${env:MONGO_CDC_CATALOG_URL}",
      description = "JDBC URL of the catalog database, without a password (env MONGO_CDC_CATALOG_URL).")
  String catalogUrl;

  @Mixin PeersOptions peersOptions;

  @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "${env:MONGO_CDC_METRICS_PORT:--1}",
      description = "Serve Prometheus metrics at http://<host>:PORT/metrics; -1 for none (env MONGO_CDC_METRICS_PORT;"
          + " default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Option(names = "--console-port", paramLabel = "PORT", defaultValue = "${env:MONGO_CDC_CONSOLE_PORT:--1}",
      description = "Serve the mirror console at http://<console host>:PORT/; -1 for none (env MONGO_CDC_CONSOLE_PORT;"
          + " default: ${DEFAULT-VALUE}).")
  int consolePort;

  @Mixin ConsoleOptions console;

  @Mixin ApplyOptions apply;

  @Mixin ConcurrencyOptions concurrency;

  @Option(names = "--identity", paramLabel = "NAME", defaultValue = "${env:MONGO_CDC_WORKER_IDENTITY}",
      description = "How this worker names itself to Temporal: the worker identity in workflow histories and in a"
          + " pending activity's last worker (env MONGO_CDC_WORKER_IDENTITY; default: <pid>@<host>).")
  String identity;

  @Option(names = "--sticky-workflows", negatable = true, defaultValue = "${env:MONGO_CDC_STICKY_WORKFLOWS:-true}",
      fallbackValue = "true",
      description = "Send a mirror's workflow tasks to the worker that ran it last, which keeps it cached (Temporal's"
          + " sticky execution; env MONGO_CDC_STICKY_WORKFLOWS; default: ${DEFAULT-VALUE}). Give"
          + " --no-sticky-workflows with the standalone server of 'mongo-cdc dev': unlike a Temporal server, it never"
          + " moves a stopped worker's tasks to the others, so a mirror that worker ran last would wait for ever.")
  boolean stickyWorkflows = true;

  @Option(names = "--max-decoded-bytes-in-flight", paramLabel = "BYTES",
      defaultValue = "${env:MONGO_CDC_MAX_DECODED_BYTES_IN_FLIGHT}",
      description = "Decoded bytes all the worker's batches may hold at once; decoding waits while they do"
          + " (env MONGO_CDC_MAX_DECODED_BYTES_IN_FLIGHT; default: a quarter of the maximum heap, at least 64 MiB).")
  Long maxDecodedBytesInFlight;

  @Spec CommandSpec spec;

  WorkerCommand(CliContext context) {
    this.context = context;
  }

  @Override
  public Integer call() throws Exception {
    if (catalogUrl == null || catalogUrl.isBlank()) {
      throw new CliException("the catalog is required: give --catalog-url or set MONGO_CDC_CATALOG_URL", ExitCodes.INVALID);
    }
    ConsoleSettings consoleSettings = console.settings(consolePort);
    PullTuning tuning = concurrency.tuning(pullTuning());
    WorkerOptions workerOptions = workerOptions();
    PeerRegistry peers = peersOptions.registry(context.environment());
    PostgresSinkOptions sinkOptions = apply.sinkOptions();
    WorkerPorts ports = context.ports().create(catalogUrl, peers, sinkOptions);
    WorkflowClient client = context.clients().connect(temporal);
    awaitTemporal(client);
    WorkerWiring.Workers workers = WorkerWiring.workers(client);
    WorkerFactory factory = workers.factory();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    PrometheusEndpoint metrics = metricsPort < 0 ? null : PrometheusEndpoint.start(registry, "0.0.0.0", metricsPort);
    MirrorHealthMetrics health = metricsPort < 0 ? null
        : new MirrorHealthMetrics(registry, ports.catalog()::mirrorHealth, Clock.systemUTC()).start();
    WorkerWiring.register(workers, temporal.taskQueue(), workerOptions, peers, ports,
        tuning, new PipelineMetrics(registry, Clock.systemUTC(), null));
    factory.start();
    MirrorConsole mirrorConsole = !consoleSettings.enabled() ? null
        : MirrorConsole.start(consoleSettings, new ConsoleQueries(context.ports().catalogReads(catalogUrl)),
            new TemporalMirrorActions(client, temporal.taskQueue()));
    spec.commandLine().getOut().printf("worker%s polling task queue %s in namespace %s at %s; catalog %s%s%n",
        identity == null ? "" : " " + identity, temporal.taskQueue(), temporal.namespace(), temporal.address(),
        Redaction.redact(catalogUrl), stickyWorkflows ? "" : "; workflows not sticky");
    spec.commandLine().getOut().println(ApplyOptions.describe(sinkOptions, concurrency.maxConcurrentActivities));
    if (mirrorConsole != null) {
      spec.commandLine().getOut().printf("console: %s%s%n", mirrorConsole.url(),
          consoleSettings.readOnly() ? " (read-only)" : "");
    }
    spec.commandLine().getOut().flush();
    context.shutdown().runUntilStopped(() -> {
      // Activities in flight get the time to notice and stop; their batches resume elsewhere.
      factory.shutdown();
      try {
        factory.awaitTermination(30, TimeUnit.SECONDS);
      } catch (RuntimeException e) {
        // Stopping anyway.
      }
      if (mirrorConsole != null) {
        mirrorConsole.close();
      }
      context.clients().release(client);
      if (metrics != null) {
        metrics.close();
        health.close();
      }
    });
    return ExitCodes.OK;
  }

  /** The Temporal worker's options from the command line. @throws CliException for a value that cannot work */
  WorkerOptions workerOptions() {
    if (identity != null && identity.isBlank()) {
      throw new CliException("--identity must not be blank", ExitCodes.INVALID);
    }
    return concurrency.workerOptions(identity, stickyWorkflows);
  }

  /**
   * Waits until the Temporal frontend answers for the namespace: a worker may start before its
   * server, or on a machine so busy that the first connection takes seconds, and then starts
   * once it can instead of failing at once. Gives up after {@link #TEMPORAL_WAIT}, and at once
   * for an answer that waiting cannot change (an unknown namespace, no permission).
   */
  private void awaitTemporal(WorkflowClient client) throws InterruptedException {
    long deadline = System.nanoTime() + TEMPORAL_WAIT.toNanos();
    boolean told = false;
    while (true) {
      try {
        client.getWorkflowServiceStubs().blockingStub().withDeadlineAfter(10, TimeUnit.SECONDS)
            .describeNamespace(DescribeNamespaceRequest.newBuilder().setNamespace(temporal.namespace()).build());
        return;
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        if (code != Status.Code.UNAVAILABLE && code != Status.Code.DEADLINE_EXCEEDED || System.nanoTime() > deadline) {
          throw e;
        }
        if (!told) {
          spec.commandLine().getOut().printf("waiting for Temporal at %s (%s)...%n", temporal.address(), code);
          spec.commandLine().getOut().flush();
          told = true;
        }
        Thread.sleep(1_000);
      }
    }
  }

  /** @throws CliException if a value cannot work */
  private PullTuning pullTuning() {
    PullTuning tuning = PullTuning.defaults();
    if (maxDecodedBytesInFlight == null) {
      return tuning;
    }
    if (maxDecodedBytesInFlight <= 0) {
      throw new CliException("--max-decoded-bytes-in-flight must be at least 1 byte, got " + maxDecodedBytesInFlight,
          ExitCodes.INVALID);
    }
    return tuning.withMaxDecodedBytesInFlight(maxDecodedBytesInFlight);
  }
}
