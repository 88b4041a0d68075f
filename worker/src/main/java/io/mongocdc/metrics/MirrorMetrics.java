package io.mongocdc.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.mongocdc.pipeline.PullProgress;
import io.mongocdc.pipeline.PullResult;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.BatchFigure;
import io.mongocdc.workflows.model.BatchFigures;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One mirror's pipeline metrics, fed from PullRecords progress reports and batch results:
 * events read, records decoded and delivered, the decode queue's depth, batch duration, and
 * checkpoint lag (how far the delivered checkpoint's cluster time is behind now), freshness (how
 * long committed changes took from their source commit to being visible, per committed chunk) and
 * visible lag (how far the newest visible change's source commit time is behind now).
 *
 * <p>Progress counts restart at zero each batch; this class turns them into monotonic counters.
 */
public final class MirrorMetrics {

  private final Clock clock;
  private final MeterRegistry registry;
  private final Tags tags;
  private final Counter eventsRead;
  private final Counter recordsDecoded;
  private final Counter recordsDelivered;
  /** The counters of the batch figures that declare one and count a single number. */
  private final Map<BatchFigure<?>, Counter> figureCounters = new LinkedHashMap<>();
  private final Timer batchDuration;
  private final Counter snapshotDocuments;
  private final Counter snapshotPartitions;
  private final AtomicLong queueDepth = new AtomicLong();
  private final AtomicLong checkpointEpochSeconds = new AtomicLong(-1);
  private final AtomicLong oplogHeadroomSeconds = new AtomicLong(-1);
  private final Timer freshness;
  private final Timer freshnessQuantiles;
  private final FreshnessSamples freshnessSamples;
  private final AtomicLong visibleThroughMillis = new AtomicLong(Long.MIN_VALUE);
  private final Timer connectionWaits;
  private final AtomicLong waitingForConnections = new AtomicLong();
  private long seenRead;
  private long seenDecoded;
  private long seenDelivered;

  MirrorMetrics(MeterRegistry registry, String mirror, Clock clock, FreshnessSamples freshnessSamples) {
    this.clock = clock;
    this.freshnessSamples = freshnessSamples;
    Tags tags = Tags.of("mirror", mirror);
    this.registry = registry;
    this.tags = tags;
    eventsRead = Counter.builder("mongo_cdc_events_read").description("change events read from the stream")
        .tags(tags).register(registry);
    recordsDecoded = Counter.builder("mongo_cdc_records_decoded").description("records the decode pool produced")
        .tags(tags).register(registry);
    recordsDelivered = Counter.builder("mongo_cdc_records_delivered")
        .description("records durably committed to the destination").tags(tags).register(registry);
    for (BatchFigure<?> figure : BatchFigures.DECLARED) {
      if (figure.metric() != null && figure.metricTag() == null) {
        figureCounters.put(figure, Counter.builder(figure.metric()).description(figure.doc()).tags(tags)
            .register(registry));
      }
    }
    batchDuration = Timer.builder("mongo_cdc_batch_duration").description("wall time of PullRecords batches")
        .tags(tags).register(registry);
    snapshotDocuments = Counter.builder("mongo_cdc_snapshot_documents_copied")
        .description("documents the snapshot copied and committed").tags(tags).register(registry);
    snapshotPartitions = Counter.builder("mongo_cdc_snapshot_partitions_copied")
        .description("snapshot partitions copied and committed").tags(tags).register(registry);
    Gauge.builder("mongo_cdc_decode_queue_depth", queueDepth, AtomicLong::get)
        .description("chunks read and not yet written to the destination").tags(tags).register(registry);
    Gauge.builder("mongo_cdc_checkpoint_lag_seconds", this, MirrorMetrics::checkpointLagSeconds)
        .description("now minus the cluster time of the delivered checkpoint").tags(tags).register(registry);
    freshness = Timer.builder("mongo_cdc_freshness")
        .description("per committed record: the commit that made it visible minus its source commit time (wallTime,"
            + " or cluster time where absent)")
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofMillis(1))
        .maximumExpectedValue(Duration.ofMinutes(10))
        .tags(tags).register(registry);
    // Prometheus publishes a timer's histogram or its client-side quantiles, not both: the
    // quantiles (as Debezium gives them) are a second timer.
    freshnessQuantiles = Timer.builder("mongo_cdc_freshness_quantiles")
        .description("the freshness of mongo_cdc_freshness as client-side quantiles over about the last minute")
        .publishPercentiles(0.5, 0.95, 0.99)
        .distributionStatisticExpiry(Duration.ofMinutes(1))
        .tags(tags).register(registry);
    Gauge.builder("mongo_cdc_visible_lag_seconds", this, MirrorMetrics::visibleLagSeconds)
        .description("now minus the source commit time of the newest change visible in the destination (NaN: none"
            + " yet); unlike the checkpoint lag, it is what readers of the destination see")
        .tags(tags).register(registry);
    Gauge.builder("mongo_cdc_oplog_headroom_seconds", oplogHeadroomSeconds, v -> v.get() < 0 ? Double.NaN : v.get())
        .description("how much older the checkpoint may get before the oplog no longer holds it (NaN: unknown)")
        .tags(tags).register(registry);
    connectionWaits = Timer.builder("mongo_cdc_destination_connection_waits")
        .description("batches that waited for their destination connections (more mirrors than the worker's pool"
            + " serves at once), and how long")
        .tags(tags).register(registry);
    Gauge.builder("mongo_cdc_waiting_for_destination_connections", waitingForConnections, AtomicLong::get)
        .description("1 while the mirror's batch waits for its destination connections").tags(tags).register(registry);
  }

  /** A progress report of the batch under way. */
  public synchronized void onProgress(PullProgress progress) {
    eventsRead.increment(progress.eventsRead() - seenRead);
    recordsDecoded.increment(progress.recordsDecoded() - seenDecoded);
    recordsDelivered.increment(progress.recordsDelivered() - seenDelivered);
    seenRead = progress.eventsRead();
    seenDecoded = progress.recordsDecoded();
    seenDelivered = progress.recordsDelivered();
    queueDepth.set(progress.chunksInFlight());
    observeCheckpoint(progress.deliveredCheckpoint());
  }

  /**
   * A commit at {@code committedAtMillis} made records visible, whose source commit times are the
   * first {@code count} of {@code sourceCommitMillis}: each record's freshness is one observation
   * (called on the pull's sender thread: quick).
   */
  public void onVisible(long committedAtMillis, long[] sourceCommitMillis, int count) {
    long newest = Long.MIN_VALUE;
    for (int i = 0; i < count; i++) {
      long millis = Math.max(0, committedAtMillis - sourceCommitMillis[i]);
      freshness.record(millis, TimeUnit.MILLISECONDS);
      freshnessQuantiles.record(millis, TimeUnit.MILLISECONDS);
      newest = Math.max(newest, sourceCommitMillis[i]);
    }
    visibleThroughMillis.accumulateAndGet(newest, Math::max);
    if (freshnessSamples != null) {
      freshnessSamples.add(committedAtMillis, sourceCommitMillis, count);
    }
  }

  private double visibleLagSeconds() {
    long through = visibleThroughMillis.get();
    return through == Long.MIN_VALUE ? Double.NaN : Math.max(0, clock.millis() - through) / 1000.0;
  }

  /** Typed column values that did not convert, by table and column ({@code mongo_cdc_column_drift}). */
  public void onColumnDrift(Map<String, Map<String, Long>> drift) {
    drift.forEach((table, columns) -> columns.forEach((column, values) ->
        Counter.builder("mongo_cdc_column_drift")
            .description("written typed column values that did not convert (left NULL, described in _drift)")
            .tags(tags.and("table", table, "column", column)).register(registry).increment(values)));
  }

  /** A snapshot partition was copied and committed. */
  public void onSnapshotPartition(long documents) {
    snapshotDocuments.increment(documents);
    snapshotPartitions.increment();
  }

  /** A batch ended successfully. */
  public synchronized void onBatch(PullResult result) {
    eventsRead.increment(result.eventsRead() - seenRead);
    recordsDelivered.increment(result.recordsDelivered() - seenDelivered);
    // Every delivered record was decoded; a batch that ended early may have decoded a few more.
    recordsDecoded.increment(Math.max(0, result.recordsDelivered() - seenDecoded));
    count(result.figures());
    batchDuration.record(result.timings().total());
    queueDepth.set(0);
    observeCheckpoint(result.checkpoint());
    seenRead = 0;
    seenDecoded = 0;
    seenDelivered = 0;
  }

  /**
   * Adds the batch figures that declare a counter: a figure by name to the counter of each name
   * (tagged as declared), created on its first count.
   */
  private void count(BatchFigures figures) {
    for (BatchFigure<?> figure : figures.known()) {
      Object value = figures.get(figure);
      if (figure.metric() == null || value == null) {
        continue;
      }
      if (value instanceof Map<?, ?> byName) {
        byName.forEach((name, count) -> Counter.builder(figure.metric()).description(figure.doc())
            .tags(tags.and(figure.metricTag(), String.valueOf(name))).register(registry)
            .increment(((Number) count).doubleValue()));
      } else {
        figureCounters.get(figure).increment(((Number) value).doubleValue());
      }
    }
  }

  /** A batch failed: its progress counts start again with the retry. */
  public synchronized void onBatchFailed() {
    queueDepth.set(0);
    seenRead = 0;
    seenDecoded = 0;
    seenDelivered = 0;
  }

  /** The oplog headroom of the committed checkpoint, when the source reports it. */
  /** The batch began to wait for its destination connections. */
  public void onConnectionWaitStarted() {
    waitingForConnections.set(1);
  }

  /** The batch waited {@code waited} for its destination connections, and waits no more. */
  public void onConnectionWaitEnded(Duration waited) {
    waitingForConnections.set(0);
    connectionWaits.record(waited);
  }

  public void onOplogHeadroom(Duration headroom) {
    oplogHeadroomSeconds.set(Math.max(0, headroom.toSeconds()));
  }

  private void observeCheckpoint(StreamPosition checkpoint) {
    try {
      checkpointEpochSeconds.set(checkpoint.clusterTime().getTime());
    } catch (IllegalStateException e) {
      // A token without a readable cluster time: keep the last known lag.
    }
  }

  private double checkpointLagSeconds() {
    long seconds = checkpointEpochSeconds.get();
    return seconds < 0 ? Double.NaN : Math.max(0, clock.instant().getEpochSecond() - seconds);
  }
}
