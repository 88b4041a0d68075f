package io.mongocdc.workflows.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Unmodifiable copies of maps for the model, whose iteration order is a function of their
 * content: workflow code iterates these maps (into validation messages, JSON, commands), and a
 * replay on another JVM must iterate them the same way. {@code Map.copyOf} does not qualify:
 * its iteration order changes from one JVM run to the next.
 *
 * <p>Like {@code Map.copyOf}, both refuse null keys and values.
 */
final class DeterministicMaps {

  private DeterministicMaps() {}

  /** A copy iterated in key order, whatever the order of {@code map}. */
  static <K extends Comparable<? super K>, V> Map<K, V> sorted(Map<K, V> map) {
    Map<K, V> copy = new TreeMap<>();
    map.forEach((key, value) -> copy.put(Objects.requireNonNull(key), Objects.requireNonNull(value)));
    return Collections.unmodifiableMap(copy);
  }

  /** A copy iterated in the order of {@code map}: for maps whose order is the caller's, as sent. */
  static <K, V> Map<K, V> inOrder(Map<K, V> map) {
    Map<K, V> copy = new LinkedHashMap<>();
    map.forEach((key, value) -> copy.put(Objects.requireNonNull(key), Objects.requireNonNull(value)));
    return Collections.unmodifiableMap(copy);
  }
}
