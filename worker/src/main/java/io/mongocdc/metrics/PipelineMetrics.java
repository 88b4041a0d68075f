package io.mongocdc.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.mongocdc.pipeline.DecodeThreads;
import io.mongocdc.pipeline.DecodedBytesBudget;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The worker's pipeline metrics: one {@link MirrorMetrics} per mirror, in one registry. */
public final class PipelineMetrics {

  private final MeterRegistry registry;
  private final Clock clock;
  private final Map<String, MirrorMetrics> mirrors = new ConcurrentHashMap<>();
  private final FreshnessSamples freshnessSamples;

  /** @param freshnessSamples also keeps every freshness figure there; null: only in the metrics */
  public PipelineMetrics(MeterRegistry registry, Clock clock, FreshnessSamples freshnessSamples) {
    this.registry = registry;
    this.clock = clock;
    this.freshnessSamples = freshnessSamples;
  }

  public MirrorMetrics mirror(String name) {
    return mirrors.computeIfAbsent(name, n -> new MirrorMetrics(registry, n, clock, freshnessSamples));
  }

  /**
   * The worker's decoded-bytes budget, shared by all its mirrors: held now, the cap, and the most
   * held at once (near the cap means the budget is what holds pulls back).
   */
  public void decodedBytesBudget(DecodedBytesBudget budget) {
    Gauge.builder("mongo_cdc_decoded_bytes_in_flight", budget, DecodedBytesBudget::heldBytes)
        .description("decoded bytes the worker's pulls hold: chunks waiting for the sender or being written")
        .register(registry);
    Gauge.builder("mongo_cdc_decoded_bytes_max", budget, DecodedBytesBudget::maxBytes)
        .description("the worker's decoded-bytes budget (--max-decoded-bytes-in-flight)")
        .register(registry);
    Gauge.builder("mongo_cdc_decoded_bytes_high_water_mark", budget, DecodedBytesBudget::highWaterMark)
        .description("the most decoded bytes the worker's pulls held at once")
        .register(registry);
  }

  public void decodeThreads(DecodeThreads threads) {
    Gauge.builder("mongo_cdc_decode_threads_busy", threads, DecodeThreads::busy)
        .description("chunks the worker's pulls are decoding now")
        .register(registry);
    Gauge.builder("mongo_cdc_decode_threads_max", threads, DecodeThreads::max)
        .description("chunks the worker's pulls may decode at once (--decode-threads)")
        .register(registry);
    Gauge.builder("mongo_cdc_decode_threads_waiting", threads, DecodeThreads::waiting)
        .description("chunks waiting for one of the worker's decode threads")
        .register(registry);
  }

  public MeterRegistry registry() {
    return registry;
  }
}
