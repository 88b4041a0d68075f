package io.mongocdc.pipeline;

import java.time.Instant;

/**
 * How long a pull's committed records took from their source commit to being visible in the
 * destination, over its chunks (one figure per chunk: its newest record).
 *
 * @param chunks the committed chunks measured
 * @param p50Millis the median freshness in milliseconds
 * @param p99Millis the 99th percentile in milliseconds
 * @param maxMillis the largest
 * @param visibleThrough the source commit time of the newest record made visible
 */
public record Freshness(long chunks, long p50Millis, long p99Millis, long maxMillis, Instant visibleThrough) {}
