package io.mongocdc.workflows.model;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts of typed column values that did not convert ({@code _drift}), by destination table, then
 * column: sorted, so they iterate alike on every replay.
 */
public final class ColumnDrift {

  private ColumnDrift() {}

  /** A sorted, unmodifiable copy; empty for null. */
  public static Map<String, Map<String, Long>> copyOf(Map<String, Map<String, Long>> drift) {
    if (drift == null || drift.isEmpty()) {
      return Map.of();
    }
    Map<String, Map<String, Long>> copy = new TreeMap<>();
    drift.forEach((table, columns) -> copy.put(table, DeterministicMaps.sorted(columns)));
    return Collections.unmodifiableMap(copy);
  }

  /** Both counts added up. */
  public static Map<String, Map<String, Long>> plus(Map<String, Map<String, Long>> a, Map<String, Map<String, Long>> b) {
    if (b == null || b.isEmpty()) {
      return copyOf(a);
    }
    Map<String, Map<String, Long>> sum = new TreeMap<>();
    copyOf(a).forEach((table, columns) -> sum.put(table, new TreeMap<>(columns)));
    b.forEach((table, columns) -> columns.forEach((column, rows) ->
        sum.computeIfAbsent(table, t -> new TreeMap<>()).merge(column, rows, Long::sum)));
    return copyOf(sum);
  }
}
