package io.mongocdc.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.mongocdc.ports.MirrorHealth;
import io.mongocdc.secrets.Redaction;
import io.mongocdc.workflows.model.MirrorPhase;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every mirror's health from the catalog, as gauges an alert rule can watch while no batch runs:
 * a failed, paused or stalled mirror publishes no pipeline metrics of its own, and a worker that
 * no longer runs a mirror's batches keeps its last ones. Read again every {@link #REFRESH}; ages
 * are computed at each scrape. Every worker that serves metrics publishes the same figures (rules
 * take the {@code max} or {@code min} by mirror); a mirror dropped from the catalog leaves them at the next read.
 */
public final class MirrorHealthMetrics implements AutoCloseable {

  public static final Duration REFRESH = Duration.ofSeconds(15);

  private static final Logger log = LoggerFactory.getLogger(MirrorHealthMetrics.class);

  private final Supplier<List<MirrorHealth>> catalog;
  private final Clock clock;
  private final MultiGauge state;
  private final MultiGauge stateSeconds;
  private final MultiGauge checkpointAge;
  private final MultiGauge oplogHeadroom;
  private final MultiGauge copySecondsLeft;
  private final MultiGauge quarantined;
  private final MultiGauge verifyDifferences;
  private final Counter readFailures;
  private final ScheduledExecutorService refresher;
  private boolean lastReadFailed;

  /** Publishes into {@code registry}, reading nothing until {@link #refresh} or {@link #start}. */
  public MirrorHealthMetrics(MeterRegistry registry, Supplier<List<MirrorHealth>> catalog, Clock clock) {
    this.catalog = catalog;
    this.clock = clock;
    state = MultiGauge.builder("mongo_cdc_mirror_state")
        .description("1 for the mirror's state as the catalog records it (tag state), 0 for the others")
        .register(registry);
    stateSeconds = MultiGauge.builder("mongo_cdc_mirror_state_seconds")
        .description("seconds since the mirror entered its state").register(registry);
    checkpointAge = MultiGauge.builder("mongo_cdc_checkpoint_age_seconds")
        .description("seconds since the mirror last committed a checkpoint (every batch commits one, empty or not)")
        .register(registry);
    oplogHeadroom = MultiGauge.builder("mongo_cdc_catalog_oplog_headroom_seconds")
        .description("seconds the committed checkpoint may still fall behind before the oplog no longer holds it,"
            + " from the oplog span the last batch read, moved on by the clock since (negative: history lost)")
        .register(registry);
    copySecondsLeft = MultiGauge.builder("mongo_cdc_catalog_snapshot_seconds_left")
        .description("seconds the running copy (first snapshot, resync, added collection) is expected to take still,"
            + " its documents left at the rate it copied so far; 0 when none runs, NaN until a partition finished")
        .register(registry);
    quarantined = MultiGauge.builder("mongo_cdc_quarantined_events")
        .description("events in the catalog's quarantined_events not replayed yet").register(registry);
    verifyDifferences = MultiGauge.builder("mongo_cdc_verify_differences")
        .description("documents the mirror's last finished verify run confirmed to differ and did not repair")
        .register(registry);
    readFailures = Counter.builder("mongo_cdc_catalog_read_failures")
        .description("refreshes of the mirror health gauges that could not read the catalog").register(registry);
    refresher = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "mongo-cdc-mirror-health");
      thread.setDaemon(true);
      return thread;
    });
  }

  /** Reads the catalog now and every {@link #REFRESH} until {@link #close}. */
  public MirrorHealthMetrics start() {
    refresher.scheduleWithFixedDelay(this::refresh, 0, REFRESH.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  /** Reads the catalog once; a catalog that cannot be read leaves the last figures and counts a failure. */
  public synchronized void refresh() {
    List<MirrorHealth> mirrors;
    try {
      mirrors = catalog.get();
    } catch (RuntimeException e) {
      readFailures.increment();
      if (!lastReadFailed) {
        log.warn("cannot read the mirrors' health from the catalog (gauges keep their last figures): {}",
            Redaction.redact(String.valueOf(e.getMessage())));
      }
      lastReadFailed = true;
      return;
    }
    if (lastReadFailed) {
      log.info("the mirrors' health reads from the catalog again");
    }
    lastReadFailed = false;
    List<MultiGauge.Row<?>> states = new ArrayList<>();
    List<MultiGauge.Row<?>> since = new ArrayList<>();
    List<MultiGauge.Row<?>> ages = new ArrayList<>();
    List<MultiGauge.Row<?>> headrooms = new ArrayList<>();
    List<MultiGauge.Row<?>> copies = new ArrayList<>();
    List<MultiGauge.Row<?>> quarantine = new ArrayList<>();
    List<MultiGauge.Row<?>> differences = new ArrayList<>();
    for (MirrorHealth mirror : mirrors) {
      Tags tags = Tags.of("mirror", mirror.mirror());
      for (MirrorPhase phase : MirrorPhase.values()) {
        states.add(MultiGauge.Row.of(tags.and("state", phase.name().toLowerCase(Locale.ROOT)),
            phase == mirror.state() ? 1 : 0));
      }
      since.add(MultiGauge.Row.of(tags, mirror, m -> m.stateSeconds(clock.instant())));
      ages.add(MultiGauge.Row.of(tags, mirror, m -> m.checkpointAgeSeconds(clock.instant())));
      headrooms.add(MultiGauge.Row.of(tags, mirror, m -> m.oplogHeadroomSeconds(clock.instant())));
      copies.add(MultiGauge.Row.of(tags, mirror, m -> m.copySecondsLeft(clock.instant())));
      quarantine.add(MultiGauge.Row.of(tags, mirror.quarantinedEvents()));
      if (mirror.verifyDifferences() != null) {
        differences.add(MultiGauge.Row.of(tags, mirror.verifyDifferences()));
      }
    }
    state.register(states, true);
    stateSeconds.register(since, true);
    checkpointAge.register(ages, true);
    oplogHeadroom.register(headrooms, true);
    copySecondsLeft.register(copies, true);
    quarantined.register(quarantine, true);
    verifyDifferences.register(differences, true);
  }

  @Override
  public void close() {
    refresher.shutdownNow();
  }
}
