package io.mongocdc.pipeline;

import io.mongocdc.source.scripted.Gate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * After every test, passed or failed: opens the gates the test's sinks and renderers hold (and
 * releases its uninterruptible sinks),
 * cancels the pulls it started and waits for their threads, then checks that no pipeline thread
 * is left. A test that fails with a gate closed thus fails alone, instead of leaving its pull
 * running into every later test's thread check.
 */
final class PipelineCleanup implements AfterEachCallback {

  private static final Duration THREADS_END_WITHIN = Duration.ofSeconds(20);
  private static final List<Runnable> RELEASES = new ArrayList<>();
  private static final List<PullOutcomeProbe> PROBES = new ArrayList<>();

  static synchronized Gate opensAfterTest(Gate gate) {
    RELEASES.add(gate::release);
    return gate;
  }

  static synchronized UninterruptibleSink releasesAfterTest(UninterruptibleSink sink) {
    RELEASES.add(sink::release);
    return sink;
  }

  static synchronized void cancelsAfterTest(PullOutcomeProbe probe) {
    PROBES.add(probe);
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    List<Runnable> releases;
    List<PullOutcomeProbe> probes;
    synchronized (PipelineCleanup.class) {
      releases = List.copyOf(RELEASES);
      probes = List.copyOf(PROBES);
      RELEASES.clear();
      PROBES.clear();
    }
    releases.forEach(Runnable::run);
    for (PullOutcomeProbe probe : probes) {
      probe.cancelAndAwait();
    }
    long deadline = System.nanoTime() + THREADS_END_WITHIN.toNanos();
    for (Thread thread : new ArrayList<>(Thread.getAllStackTraces().keySet())) {
      if (thread.getName().startsWith("mongo-cdc-")) {
        thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      }
    }
    PipelineThreads.assertNoneAlive();
  }
}
