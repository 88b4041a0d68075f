package io.mongocdc.devtools;

import io.mongocdc.privacy.HashKey;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.Peer;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.activities.PullTuning;
import io.mongocdc.ports.UnknownPeerException;
import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.MirrorProgress;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.wiring.ProductionPorts;
import io.mongocdc.wiring.WorkerPorts;
import io.mongocdc.wiring.WorkerWiring;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.destination.PostgresUrls;
import io.mongocdc.metrics.FreshnessSamples;
import io.mongocdc.metrics.PipelineMetrics;
import io.mongocdc.catalog.ConsoleQueries;
import io.mongocdc.console.ConsoleSettings;
import io.mongocdc.console.MirrorConsole;
import io.mongocdc.console.TemporalMirrorActions;
import io.mongocdc.metrics.MirrorHealthMetrics;
import io.mongocdc.metrics.PrometheusEndpoint;
import io.mongocdc.workflows.model.MirrorConfig;
import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import io.temporal.client.WorkflowClient;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.testserver.TestServer;
import io.temporal.worker.WorkerFactory;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.Optional;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/**
 * Everything {@code mongo-cdc dev} runs in one process: an embedded PostgreSQL (catalog and
 * destination), the standalone Temporal server on a port the Temporal CLI can use, a worker on
 * it, and a Prometheus endpoint; or, as a cluster host ({@link #startHost}), the database and
 * the server alone, for workers in other processes. Closing it stops them in reverse order.
 */
final class DevStack implements AutoCloseable {

  static final String DESTINATION_PEER = "embedded-postgres";
  /** The load generator's peer: it has no connection string, only a name the mirror refers to. */
  static final String GENERATOR_PEER = "generator";
  static final String TASK_QUEUE = "mongo-cdc";

  final EmbeddedPostgres postgres;
  final HikariDataSource catalogPool;
  /** The catalog over that pool, migrated once at the start. */
  private final Catalog catalog;
  final String jdbcUrl;
  final TestServer.PortBoundTestServer temporal;
  final int temporalPort;
  final WorkflowServiceStubs service;
  final WorkflowClient client;
  final WorkerFactory workers;
  final PrometheusMeterRegistry registry;
  final PrometheusEndpoint metricsEndpoint;
  private final MirrorHealthMetrics health;
  /** The mirror console, or null when it is off. */
  final MirrorConsole console;
  /** Every freshness figure of the run, for its report. */
  final FreshnessSamples freshness;

  private DevStack(EmbeddedPostgres postgres, HikariDataSource catalogPool, Catalog catalog, String jdbcUrl, TestServer.PortBoundTestServer temporal, int temporalPort,
      WorkflowServiceStubs service, WorkflowClient client, WorkerFactory workers, PrometheusMeterRegistry registry,
      PrometheusEndpoint metricsEndpoint, MirrorHealthMetrics health, MirrorConsole console, FreshnessSamples freshness) {
    this.health = health;
    this.console = console;
    this.freshness = freshness;
    this.postgres = postgres;
    this.catalogPool = catalogPool;
    this.catalog = catalog;
    this.jdbcUrl = jdbcUrl;
    this.temporal = temporal;
    this.temporalPort = temporalPort;
    this.service = service;
    this.client = client;
    this.workers = workers;
    this.registry = registry;
    this.metricsEndpoint = metricsEndpoint;
  }

  /**
   * Starts the stack.
   *
   * @param sourcePeers the source peers the worker knows (name to connection string)
   * @param sources the source port, built over the worker's peer registry
   * @param fieldHashKey the key of the mirror's hash field rules; null for none
   */
  static DevStack start(int temporalPort, int metricsPort, Map<String, String> sourcePeers,
      Function<PeerRegistry, MirrorSourceFactory> sources, PullTuning tuning, PostgresSinkOptions destination,
      HashKey fieldHashKey, ConsoleSettings consoleSettings) throws IOException {
    // Without its own shutdown hook: on Ctrl-C the database must outlive the summary, and close() stops it last.
    EmbeddedPostgres postgres = EmbeddedPostgres.builder().setRegisterShutdownHook(false).start();
    try {
      String jdbcUrl = "jdbc:postgresql://localhost:" + postgres.getPort() + "/postgres?user=postgres";
      HikariDataSource dataSource = PostgresUrls.pool("pg-catalog", postgres.getPostgresDatabase(),
          ProductionPorts.CATALOG_CONNECTIONS);
      Catalog catalog = Catalog.open(dataSource);
      PeerRegistry peers = new PeerRegistry() {
        @Override
        public Peer resolve(String name) {
          if (DESTINATION_PEER.equals(name)) {
            return new Peer(name, jdbcUrl);
          }
          if (GENERATOR_PEER.equals(name)) {
            return new Peer(name, "generator:built-in");
          }
          String uri = sourcePeers.get(name);
          if (uri == null) {
            throw new UnknownPeerException(name, sourcePeers.keySet());
          }
          return new Peer(name, uri);
        }

        @Override
        public HashKey fieldHashKey() {
          return fieldHashKey;
        }
      };
      WorkerPorts ports = ProductionPorts.over(catalog, peers, destination, sources.apply(peers));

      TestServer.PortBoundTestServer temporal = TestServer.createPortBoundServer(temporalPort, true);
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      // The Temporal SDK's own metrics (polls, task latencies, activity outcomes) join ours.
      Scope sdkMetrics = new RootScopeBuilder()
          .reporter(new MicrometerClientStatsReporter(registry))
          .reportEvery(com.uber.m3.util.Duration.ofSeconds(1));
      WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
          .setTarget("localhost:" + temporalPort).setMetricsScope(sdkMetrics).build());
      WorkflowClient client = WorkflowClient.newInstance(service, WorkflowClientOptions.newBuilder().build());
      WorkerWiring.Workers wired = WorkerWiring.workers(client);
      WorkerFactory workers = wired.factory();
      FreshnessSamples freshness = new FreshnessSamples();
      WorkerWiring.register(wired, TASK_QUEUE, WorkerWiring.workerOptions(), peers, ports, tuning,
          new PipelineMetrics(registry, java.time.Clock.systemUTC(), freshness));
      workers.start();
      PrometheusEndpoint endpoint = metricsPort < 0 ? null : PrometheusEndpoint.start(registry, "127.0.0.1", metricsPort);
      MirrorHealthMetrics health = endpoint == null ? null
          : new MirrorHealthMetrics(registry, ports.catalog()::mirrorHealth, java.time.Clock.systemUTC()).start();
      MirrorConsole console = !consoleSettings.enabled() ? null
          : MirrorConsole.start(consoleSettings, new ConsoleQueries(dataSource),
              new TemporalMirrorActions(client, TASK_QUEUE));
      return new DevStack(postgres, dataSource, catalog, jdbcUrl, temporal, temporalPort, service, client, workers, registry,
          endpoint, health, console, freshness);
    } catch (IOException | RuntimeException e) {
      postgres.close();
      throw e;
    }
  }

  /**
   * Starts the embedded PostgreSQL (its catalog migrated) and the standalone Temporal server on
   * {@code temporalPort}, and no worker: {@code mongo-cdc worker} processes connect to them.
   */
  static DevStack startHost(int temporalPort) throws IOException {
    EmbeddedPostgres postgres = EmbeddedPostgres.builder().setRegisterShutdownHook(false).start();
    HikariDataSource dataSource = null;
    TestServer.PortBoundTestServer temporal = null;
    try {
      String jdbcUrl = "jdbc:postgresql://localhost:" + postgres.getPort() + "/postgres?user=postgres";
      dataSource = PostgresUrls.pool("pg-catalog", postgres.getPostgresDatabase(), ProductionPorts.CATALOG_CONNECTIONS);
      Catalog catalog = Catalog.open(dataSource);
      temporal = TestServer.createPortBoundServer(temporalPort, true);
      WorkflowServiceStubs service = WorkflowServiceStubs.newServiceStubs(
          WorkflowServiceStubsOptions.newBuilder().setTarget("localhost:" + temporalPort).build());
      WorkflowClient client = WorkflowClient.newInstance(service, WorkflowClientOptions.newBuilder().build());
      return new DevStack(postgres, dataSource, catalog, jdbcUrl, temporal, temporalPort, service, client, null, null, null,
          null, null, null);
    } catch (RuntimeException e) {
      if (temporal != null) {
        temporal.close();
      }
      if (dataSource != null) {
        dataSource.close();
      }
      postgres.close();
      throw e;
    }
  }

  /** The mirrors' progress as the catalog records it. */
  MirrorProgress progress() {
    return new MirrorProgress(catalogPool);
  }

  DataSource dataSource() {
    return catalogPool;
  }

  /** The mirror's configuration in effect, as the catalog records it: an edit may have changed it since the start. */
  Optional<MirrorConfig> registered(String mirror) {
    return new PostgresCheckpointCatalog(catalog).registered(mirror);
  }

  @Override
  public void close() throws IOException {
    if (console != null) {
      console.close();
    }
    if (metricsEndpoint != null) {
      metricsEndpoint.close();
      health.close();
    }
    if (workers != null) {
      workers.shutdownNow();
      workers.awaitTermination(10, TimeUnit.SECONDS);
    }
    service.shutdownNow();
    service.awaitTermination(10, TimeUnit.SECONDS);
    temporal.close();
    catalogPool.close();
    postgres.close();
  }
}
