package io.mongocdc.workflows.model;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Counts of events a mirror passed over, by operation type ({@code unknownEventPolicy} SKIP, or an
 * excluded type the decoder met): sorted, so they iterate alike on every replay.
 */
public final class SkippedEvents {

  private SkippedEvents() {}

  /** A sorted, unmodifiable copy; empty for null. */
  public static Map<String, Long> copyOf(Map<String, Long> counts) {
    return plus(counts, null);
  }

  /** Both counts added up, sorted and unmodifiable; a null map counts as empty. */
  public static Map<String, Long> plus(Map<String, Long> a, Map<String, Long> b) {
    Map<String, Long> sum = new TreeMap<>();
    if (a != null) {
      a.forEach((type, count) -> sum.merge(Objects.requireNonNull(type), Objects.requireNonNull(count), Long::sum));
    }
    if (b != null) {
      b.forEach((type, count) -> sum.merge(Objects.requireNonNull(type), Objects.requireNonNull(count), Long::sum));
    }
    return Collections.unmodifiableMap(sum);
  }
}
