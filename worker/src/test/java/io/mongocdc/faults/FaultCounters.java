package io.mongocdc.faults;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Figures of a run of the fault suite: scenarios, events checked, faults injected by kind. */
final class FaultCounters {

  /** The figures of the suite's run, added to by every scenario and lane. */
  static final FaultCounters SUITE = new FaultCounters();

  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

  void add(String kind, long n) {
    counts.computeIfAbsent(kind, k -> new AtomicLong()).addAndGet(n);
  }

  void increment(String kind) {
    add(kind, 1);
  }

  long get(String kind) {
    AtomicLong value = counts.get(kind);
    return value == null ? 0 : value.get();
  }

  @Override
  public String toString() {
    Map<String, Long> sorted = new TreeMap<>();
    counts.forEach((k, v) -> sorted.put(k, v.get()));
    StringBuilder out = new StringBuilder();
    sorted.forEach((k, v) -> out.append(String.format("  %-40s %d%n", k, v)));
    return out.toString();
  }
}
