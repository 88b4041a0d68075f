package io.mongocdc.metrics;

import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Every freshness figure a worker measured, by the second it was measured in: for a run's report
 * (quantiles over a chosen part of the run), where the metric's decaying window would not do.
 * One histogram of two significant digits per second of the run: for {@code mongo-cdc dev}, not
 * for a production worker.
 */
public final class FreshnessSamples {

  private final TreeMap<Long, Histogram> bySecond = new TreeMap<>();

  /** Records made visible at {@code committedAtMillis}, with their source commit times. */
  synchronized void add(long committedAtMillis, long[] sourceCommitMillis, int count) {
    Histogram second = bySecond.computeIfAbsent(committedAtMillis / 1000, s -> new Histogram(2));
    for (int i = 0; i < count; i++) {
      second.recordValue(Math.max(0, committedAtMillis - sourceCommitMillis[i]));
    }
  }

  /** The figures measured from {@code fromMillis} (epoch, inclusive) to {@code toMillis} (exclusive), to the second. */
  public synchronized Histogram between(long fromMillis, long toMillis) {
    Histogram all = new Histogram(2);
    long fromSecond = Math.floorDiv(fromMillis + 999, 1000);
    long toSecond = Math.floorDiv(toMillis, 1000);
    if (fromSecond < toSecond) {
      bySecond.subMap(fromSecond, toSecond).values().forEach(all::add);
    }
    return all;
  }
}
