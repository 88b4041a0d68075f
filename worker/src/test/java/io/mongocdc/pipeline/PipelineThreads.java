package io.mongocdc.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

/** Checks that no pipeline thread outlives its call. */
final class PipelineThreads {

  private PipelineThreads() {}

  static List<String> alive() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith("mongo-cdc-"))
        .sorted()
        .toList();
  }

  static void assertNoneAlive() {
    assertEquals(List.of(), alive(), "pipeline threads left alive");
  }

  /** The reader thread of the call in progress, or null. */
  static Thread reader() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("mongo-cdc-") && t.getName().endsWith("-reader"))
        .findFirst()
        .orElse(null);
  }
}
