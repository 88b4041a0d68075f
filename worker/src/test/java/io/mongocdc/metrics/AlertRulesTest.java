package io.mongocdc.metrics;

import static io.mongocdc.workflows.model.BatchFigures.ATTEMPTS;
import static io.mongocdc.workflows.model.BatchFigures.END_REASON;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mongocdc.catalog.Catalog;
import io.mongocdc.catalog.PostgresCheckpointCatalog;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.testing.EmbeddedPostgresSupport;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.OplogSpan;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The shipped alert rules and Grafana dashboard watch metrics a worker serves: every {@code
 * mongo_cdc_*} name a rule's or a panel's expression uses is in the {@code /metrics} scrape of a
 * worker with one mirror, over a real catalog. {@code AlertRulesPromtoolTest} runs the rules' own
 * unit tests.
 */
class AlertRulesTest {

  static final Path RULES_DIRECTORY = Path.of("..", "monitoring", "prometheus");
  private static final Path DASHBOARD = Path.of("..", "monitoring", "grafana", "dashboards", "mongo-cdc.json");
  private static final Pattern METRIC = Pattern.compile("\\bmongo_cdc_[a-z0-9_]+\\b");

  @Test
  void everyMetricARuleOrTheDashboardNamesIsServed() throws Exception {
    Set<String> named = metricsNamedByRules();
    assertTrue(named.size() >= 7, "the rules name the metrics they watch: " + named);
    Set<String> charted = metricsNamedByDashboard();
    assertTrue(charted.size() >= 8, "the dashboard's panels name the metrics they chart: " + charted);
    named.addAll(charted);

    Catalog catalog = Catalog.open(EmbeddedPostgresSupport.newCatalogDatabase("alerts"));
    PostgresCheckpointCatalog port = new PostgresCheckpointCatalog(catalog);
    port.register(new MirrorConfig("orders", "orders-mongo", "warehouse-pg", "shop", List.of("orders"), "public",
        MirrorSettings.defaults()));
    port.commit("orders", 1, StreamPosition.after(ResumeToken.of(String.format("82%08X%08X2B0404", 1_700_000_000, 1))),
        BatchFigures.zero().with(END_REASON, "IDLE_TIMEOUT").with(ATTEMPTS, 1));
    port.recordOplogSpan("orders", new OplogSpan(1_699_990_000, 1_700_000_000), Instant.now());
    catalog.dsl().execute("insert into mongo_cdc.verify_runs (mirror_name, workflow_run_id, state)"
        + " values ('orders', 'run-1', 'done')");

    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new PipelineMetrics(registry, Clock.systemUTC(), null).mirror("orders");
    try (MirrorHealthMetrics health = new MirrorHealthMetrics(registry, port::mirrorHealth, Clock.systemUTC());
        PrometheusEndpoint endpoint = PrometheusEndpoint.start(registry, "127.0.0.1", 0)) {
      health.refresh();
      String scrape = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      Set<String> served = served(scrape);
      Set<String> missing = new TreeSet<>(named);
      missing.removeAll(served);
      assertTrue(missing.isEmpty(), "named by a rule and not served: " + missing);
      assertTrue(scrape.contains("mongo_cdc_mirror_state{mirror=\"orders\",state=\"running\"} 1.0"), scrape);
      assertTrue(scrape.contains("mongo_cdc_mirror_state{mirror=\"orders\",state=\"failed\"} 0.0"), scrape);
      assertTrue(scrape.contains("mongo_cdc_verify_differences{mirror=\"orders\"} 0.0"), scrape);
    }
  }

  /** Every {@code mongo_cdc_*} metric the rules' expressions use. */
  static Set<String> metricsNamedByRules() throws IOException {
    JsonNode rules = new ObjectMapper(new YAMLFactory())
        .readTree(Files.readString(RULES_DIRECTORY.resolve("mongo-cdc-alerts.yml")));
    Set<String> named = new TreeSet<>();
    for (JsonNode group : rules.get("groups")) {
      for (JsonNode rule : group.get("rules")) {
        assertFalse(rule.path("alert").asText().isEmpty(), "every rule is an alert with a name: " + rule);
        Matcher metric = METRIC.matcher(rule.get("expr").asText());
        while (metric.find()) {
          named.add(metric.group());
        }
      }
    }
    return named;
  }

  /** Every {@code mongo_cdc_*} metric the dashboard's panels query. */
  private static Set<String> metricsNamedByDashboard() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(Files.readString(DASHBOARD));
    Set<String> named = new TreeSet<>();
    for (JsonNode panel : dashboard.get("panels")) {
      for (JsonNode target : panel.get("targets")) {
        Matcher metric = METRIC.matcher(target.get("expr").asText());
        while (metric.find()) {
          named.add(metric.group());
        }
      }
    }
    return named;
  }

  private static Set<String> served(String scrape) {
    Set<String> served = new TreeSet<>();
    for (String line : scrape.split("\n")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        served.add(line.split("[{ ]", 2)[0]);
      }
    }
    return served;
  }

  @Test
  void aCatalogThatCannotBeReadKeepsTheLastFiguresAndCountsTheFailure() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    boolean[] fail = {false};
    List<io.mongocdc.ports.MirrorHealth> one = List.of(new io.mongocdc.ports.MirrorHealth("orders",
        io.mongocdc.workflows.model.MirrorPhase.PAUSED, Instant.now(), null, null, null, null, 2, null, null));
    try (MirrorHealthMetrics health = new MirrorHealthMetrics(registry, () -> {
      if (fail[0]) {
        throw new IllegalStateException("catalog down at jdbc:postgresql://db/cat?password=hunter2");
      }
      return one;
    }, Clock.systemUTC())) {
      health.refresh();
      fail[0] = true;
      health.refresh();
      assertEquals(1.0, registry.get("mongo_cdc_catalog_read_failures").counter().count());
      assertEquals(1.0, registry.get("mongo_cdc_mirror_state").tags("mirror", "orders", "state", "paused").gauge()
          .value());
      assertEquals(2.0, registry.get("mongo_cdc_quarantined_events").tags("mirror", "orders").gauge().value());
    }
  }
}
