package io.mongocdc.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.mongocdc.pipeline.EndReason;
import io.mongocdc.pipeline.PullProgress;
import io.mongocdc.pipeline.PullResult;
import io.mongocdc.pipeline.StageTimings;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.BatchFigures;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.bson.BsonTimestamp;
import org.junit.jupiter.api.Test;

class MirrorMetricsTest {

  private static final Clock NOW = Clock.fixed(Instant.ofEpochSecond(1_700_000_100), ZoneOffset.UTC);

  private static PullProgress progress(long read, long decoded, long delivered, int inFlight, long checkpointSeconds) {
    return new PullProgress(StreamPosition.atOperationTime(new BsonTimestamp((int) checkpointSeconds, 1)), read,
        decoded, delivered, delivered, inFlight, Duration.ofSeconds(1), null, Map.of(), null, BatchFigures.none(), null);
  }

  private static PullResult result(long read, long delivered, long checkpointSeconds) {
    Duration d = Duration.ofMillis(1500);
    return new PullResult(StreamPosition.atOperationTime(new BsonTimestamp((int) checkpointSeconds, 1)),
        EndReason.BATCH_SIZE, read, delivered, 0, Map.of(), null, BatchFigures.none(), List.of(), null, 0, 0,
        new StageTimings(d, d, d, d, d, d, d, d, d), null);
  }

  @Test
  void turnsPerBatchProgressIntoMonotonicCountersAndLag() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    MirrorMetrics metrics = new PipelineMetrics(registry, NOW, null).mirror("orders");

    metrics.onProgress(progress(100, 80, 0, 3, 1_700_000_000));
    metrics.onProgress(progress(250, 200, 0, 4, 1_700_000_000));
    metrics.onBatch(result(300, 300, 1_700_000_090));
    metrics.onProgress(progress(50, 40, 0, 1, 1_700_000_090));

    assertEquals(350, registry.get("mongo_cdc_events_read").tag("mirror", "orders").counter().count());
    assertEquals(300, registry.get("mongo_cdc_records_delivered").counter().count());
    assertEquals(340, registry.get("mongo_cdc_records_decoded").counter().count());
    assertEquals(1, registry.get("mongo_cdc_decode_queue_depth").gauge().value());
    assertEquals(10, registry.get("mongo_cdc_checkpoint_lag_seconds").gauge().value());
    assertEquals(1, registry.get("mongo_cdc_batch_duration").timer().count());
    assertTrue(Double.isNaN(registry.get("mongo_cdc_oplog_headroom_seconds").gauge().value()));
  }

  @Test
  void servesTheScrapeOverHttp() throws Exception {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new PipelineMetrics(registry, NOW, null).mirror("orders").onProgress(progress(7, 7, 7, 0, 1_700_000_000));

    try (PrometheusEndpoint endpoint = PrometheusEndpoint.start(registry, "127.0.0.1", 0)) {
      HttpResponse<String> response = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, response.statusCode());
      assertTrue(response.body().contains("mongo_cdc_events_read_total{mirror=\"orders\"} 7.0"), response.body());
    }
  }

  @Test
  void everyRecordACommitMadeVisibleIsOneFreshnessObservation() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    FreshnessSamples samples = new FreshnessSamples();
    MirrorMetrics metrics = new PipelineMetrics(registry, NOW, samples).mirror("orders");
    long now = NOW.millis();
    // Three records made visible by one commit, 30, 20 and 10 ms after their source commits; the
    // fourth time is past the count and must be ignored.
    metrics.onVisible(now, new long[] {now - 30, now - 20, now - 10, now - 5_000}, 3);

    assertEquals(3, registry.get("mongo_cdc_freshness").timer().count());
    assertEquals(30, registry.get("mongo_cdc_freshness").timer().max(java.util.concurrent.TimeUnit.MILLISECONDS));
    assertEquals(0.010, registry.get("mongo_cdc_visible_lag_seconds").gauge().value(), 1e-9);
    org.HdrHistogram.Histogram measured = samples.between(now - 1_000, now + 1_000);
    assertEquals(3, measured.getTotalCount());
    assertEquals(20, measured.getValueAtPercentile(50));
    assertEquals(0, samples.between(now + 1_000, now + 2_000).getTotalCount(), "a window after the commit holds none");
    assertEquals(0, samples.between(now + 500, now + 200).getTotalCount(), "a window that ends before it starts holds none");
    assertEquals(0, samples.between(now + 200, now + 500).getTotalCount(), "nor one within a second");
    String scrape = registry.scrape();
    assertTrue(scrape.contains("mongo_cdc_freshness_seconds_bucket{"), scrape);
    assertTrue(scrape.contains("mongo_cdc_freshness_quantiles_seconds{mirror=\"orders\",quantile=\"0.99\"} 0.0"), "the quantiles are published: " + scrape);
  }
}
