package io.mongocdc.pipeline;

import java.time.Instant;
import java.util.Arrays;

/** Collects one pull's freshness figures as its sender commits; read on the same thread. */
final class FreshnessTally {

  private long[] millis = new long[64];
  private int count;
  private long visibleThroughMillis = Long.MIN_VALUE;

  /** One committed chunk: its newest record's source commit time, and the commit's instant. */
  void add(long sourceCommitMillis, long committedAtMillis) {
    if (count == millis.length) {
      millis = Arrays.copyOf(millis, count * 2);
    }
    millis[count++] = Math.max(0, committedAtMillis - sourceCommitMillis);
    visibleThroughMillis = Math.max(visibleThroughMillis, sourceCommitMillis);
  }

  long last() {
    return millis[count - 1];
  }

  /** The figures so far; null before the first committed chunk. */
  Freshness summary() {
    if (count == 0) {
      return null;
    }
    long[] sorted = Arrays.copyOf(millis, count);
    Arrays.sort(sorted);
    return new Freshness(count, rank(sorted, 0.50), rank(sorted, 0.99), sorted[count - 1],
        Instant.ofEpochMilli(visibleThroughMillis));
  }

  /** The nearest-rank percentile. */
  private static long rank(long[] sorted, double quantile) {
    int index = (int) Math.ceil(quantile * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }
}
