package io.mongocdc.metrics;

import java.util.Arrays;

/**
 * Every freshness figure a worker measured, with when: for a run's report (quantiles over a
 * chosen part of the run), where the metric's decaying window would not do. Grows with the run:
 * for {@code mongo-cdc dev}, not for a production worker.
 */
public final class FreshnessSamples {

  private long[] atMillis = new long[1024];
  private long[] freshnessMillis = new long[1024];
  private int count;

  synchronized void add(long at, long freshness) {
    if (count == atMillis.length) {
      atMillis = Arrays.copyOf(atMillis, count * 2);
      freshnessMillis = Arrays.copyOf(freshnessMillis, count * 2);
    }
    atMillis[count] = at;
    freshnessMillis[count++] = freshness;
  }

  /** The figures measured at or after {@code fromMillis} (epoch), sorted. */
  public synchronized long[] sortedSince(long fromMillis) {
    long[] since = new long[count];
    int n = 0;
    for (int i = 0; i < count; i++) {
      if (atMillis[i] >= fromMillis) {
        since[n++] = freshnessMillis[i];
      }
    }
    long[] sorted = Arrays.copyOf(since, n);
    Arrays.sort(sorted);
    return sorted;
  }
}
