package io.mongocdc.pipeline;

import java.time.Instant;

/**
 * How long a pull's committed records took from their source commit to being visible in the
 * destination: one figure per record, the commit that made it visible minus its source commit.
 *
 * @param records the committed records measured
 * @param p50Millis the median freshness in milliseconds
 * @param p99Millis the 99th percentile in milliseconds
 * @param maxMillis the largest
 * @param visibleThrough the source commit time of the newest record made visible
 */
public record Freshness(long records, long p50Millis, long p99Millis, long maxMillis, Instant visibleThrough) {}
