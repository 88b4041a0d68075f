package io.mongocdc.devtools;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * This JVM's CPU time, sampled while dev runs, so the report can say how many cores the worker
 * kept busy during the batch phase (whose bounds are known only at the end, from the catalog).
 * Between two samples the CPU time is interpolated linearly.
 */
final class ProcessCpuSamples {

  private record Sample(long wallMillis, long cpuNanos) {}

  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final List<Sample> samples = new ArrayList<>();

  synchronized void sample() {
    samples.add(new Sample(System.currentTimeMillis(), os.getProcessCpuTime()));
  }

  /**
   * CPU seconds used between {@code from} and {@code to} per wall second: the cores busy on
   * average; null if the samples do not cover that span.
   */
  synchronized Double coresBusy(Instant from, Instant to) {
    if (from == null || to == null || !to.isAfter(from)) {
      return null;
    }
    Double start = cpuNanosAt(from.toEpochMilli());
    Double end = cpuNanosAt(to.toEpochMilli());
    if (start == null || end == null) {
      return null;
    }
    return (end - start) / 1e6 / (to.toEpochMilli() - from.toEpochMilli());
  }

  private Double cpuNanosAt(long wallMillis) {
    for (int i = 1; i < samples.size(); i++) {
      Sample before = samples.get(i - 1);
      Sample after = samples.get(i);
      if (before.wallMillis() <= wallMillis && wallMillis <= after.wallMillis()) {
        double span = Math.max(1, after.wallMillis() - before.wallMillis());
        return before.cpuNanos() + (after.cpuNanos() - before.cpuNanos()) * ((wallMillis - before.wallMillis()) / span);
      }
    }
    return null;
  }
}
