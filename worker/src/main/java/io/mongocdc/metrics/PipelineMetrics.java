package io.mongocdc.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The worker's pipeline metrics: one {@link MirrorMetrics} per mirror, in one registry. */
public final class PipelineMetrics {

  private final MeterRegistry registry;
  private final Clock clock;
  private final Map<String, MirrorMetrics> mirrors = new ConcurrentHashMap<>();

  public PipelineMetrics(MeterRegistry registry, Clock clock) {
    this.registry = registry;
    this.clock = clock;
  }

  public PipelineMetrics(MeterRegistry registry) {
    this(registry, Clock.systemUTC());
  }

  public MirrorMetrics mirror(String name) {
    return mirrors.computeIfAbsent(name, n -> new MirrorMetrics(registry, n, clock));
  }

  public MeterRegistry registry() {
    return registry;
  }
}
