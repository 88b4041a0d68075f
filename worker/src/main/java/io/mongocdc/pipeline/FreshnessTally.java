package io.mongocdc.pipeline;

import java.time.Instant;
import org.HdrHistogram.Histogram;

/**
 * Collects one pull's freshness figures as its sender commits; read on the same thread. A pull may
 * commit millions of records: their figures go into a histogram of two significant digits (1 %),
 * not a list.
 */
final class FreshnessTally {

  private final Histogram millis = new Histogram(2);
  private long visibleThroughMillis = Long.MIN_VALUE;

  /**
   * Records made visible by a commit at {@code committedAtMillis}, with the source commit times of
   * {@code count} of them, each standing for {@code weight} records.
   */
  void add(long committedAtMillis, long[] sourceCommitMillis, int count, int weight) {
    for (int i = 0; i < count; i++) {
      millis.recordValueWithCount(Math.max(0, committedAtMillis - sourceCommitMillis[i]), weight);
      visibleThroughMillis = Math.max(visibleThroughMillis, sourceCommitMillis[i]);
    }
  }

  /** The figures so far; null before the first committed record. */
  Freshness summary() {
    if (millis.getTotalCount() == 0) {
      return null;
    }
    return new Freshness(millis.getTotalCount(), millis.getValueAtPercentile(50), millis.getValueAtPercentile(99),
        millis.getMaxValue(), Instant.ofEpochMilli(visibleThroughMillis));
  }
}
