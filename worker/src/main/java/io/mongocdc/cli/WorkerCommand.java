package io.mongocdc.cli;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mongocdc.activities.ConfiguredPeerRegistry;
import io.mongocdc.activities.PeerRegistry;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.metrics.PipelineMetrics;
import io.mongocdc.metrics.PrometheusEndpoint;
import io.mongocdc.secrets.Redaction;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import java.nio.file.Path;
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

  private final CliContext context;

  @Mixin TemporalOptions temporal;

  @Option(names = "--catalog-url", paramLabel = "JDBC_URL",
      defaultValue = "${env:MONGO_CDC_CATALOG_URL}",
      description = "JDBC URL of the catalog database, without a password (env MONGO_CDC_CATALOG_URL).")
  String catalogUrl;

  @Option(names = "--peers-file", paramLabel = "FILE", defaultValue = "${env:MONGO_CDC_PEERS_FILE}",
      description = "Properties file of peers: <peer>.uri=<connection string> (env MONGO_CDC_PEERS_FILE). "
          + "MONGO_CDC_PEER_<PEER> environment variables override it.")
  Path peersFile;

  @Option(names = "--metrics-port", paramLabel = "PORT", defaultValue = "${env:MONGO_CDC_METRICS_PORT:--1}",
      description = "Serve Prometheus metrics at http://<host>:PORT/metrics; -1 for none (env MONGO_CDC_METRICS_PORT;"
          + " default: ${DEFAULT-VALUE}).")
  int metricsPort;

  @Mixin ApplyOptions apply;

  @Mixin ConcurrencyOptions concurrency;

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
    PullTuning tuning = concurrency.tuning(pullTuning());
    WorkerOptions workerOptions = concurrency.workerOptions();
    PeerRegistry peers = ConfiguredPeerRegistry.load(peersFile, context.environment());
    WorkerPorts ports = context.ports().create(catalogUrl, peers, apply.sinkOptions());
    WorkflowClient client = context.clients().connect(temporal);
    WorkerFactory factory = WorkerFactory.newInstance(client);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    PrometheusEndpoint metrics = metricsPort < 0 ? null : PrometheusEndpoint.start(registry, "0.0.0.0", metricsPort);
    WorkerWiring.register(factory.newWorker(temporal.taskQueue(), workerOptions), peers, ports,
        tuning, new PipelineMetrics(registry));
    factory.start();
    spec.commandLine().getOut().printf("worker polling task queue %s in namespace %s at %s; catalog %s%n",
        temporal.taskQueue(), temporal.namespace(), temporal.address(), Redaction.redact(catalogUrl));
    spec.commandLine().getOut().flush();
    context.shutdown().runUntilStopped(() -> {
      // Activities in flight get the time to notice and stop; their batches resume elsewhere.
      factory.shutdown();
      try {
        factory.awaitTermination(30, TimeUnit.SECONDS);
      } catch (RuntimeException e) {
        // Stopping anyway.
      }
      context.clients().release(client);
      if (metrics != null) {
        metrics.close();
      }
    });
    return ExitCodes.OK;
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
