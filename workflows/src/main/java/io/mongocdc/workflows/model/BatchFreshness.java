package io.mongocdc.workflows.model;

/**
 * How fresh a batch's changes were when they became visible in the destination: per committed
 * chunk, the commit that made it visible minus the source commit time ({@code wallTime}, or
 * cluster time where absent) of its newest change. Of the attempt that completed the batch.
 *
 * @param p50Millis the median, in milliseconds
 * @param p99Millis the 99th percentile
 * @param maxMillis the largest
 * @param visibleThroughMillis the source commit time (epoch milliseconds) of the newest change
 *     the batch made visible
 */
public record BatchFreshness(long p50Millis, long p99Millis, long maxMillis, long visibleThroughMillis) {}
