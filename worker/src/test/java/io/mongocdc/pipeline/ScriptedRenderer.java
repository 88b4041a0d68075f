package io.mongocdc.pipeline;

import io.mongocdc.decode.DocumentRenderException;
import io.mongocdc.decode.DocumentRenderer;
import io.mongocdc.decode.DriverJsonRenderer;
import io.mongocdc.source.scripted.Gate;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * A renderer that behaves as scripted for chosen documents (by their {@code n} field): blocks at
 * a gate, fails, or meets other workers at a barrier; optionally adds random delays so workers
 * finish out of order.
 */
final class ScriptedRenderer implements DocumentRenderer {

  private final DocumentRenderer delegate = new DriverJsonRenderer();
  private final Map<Integer, Gate> gates = new ConcurrentHashMap<>();
  private final Map<Integer, RuntimeException> failures = new ConcurrentHashMap<>();
  private final Map<Integer, CyclicBarrier> barriers = new ConcurrentHashMap<>();
  private final long seed;
  private final int maxDelayMicros;

  ScriptedRenderer() {
    this(0, 0);
  }

  /** Delays each render by a pseudo-random 0..maxDelayMicros, derived from the seed and {@code n}. */
  ScriptedRenderer(long seed, int maxDelayMicros) {
    this.seed = seed;
    this.maxDelayMicros = maxDelayMicros;
  }

  Gate blockAt(int n) {
    Gate gate = PipelineCleanup.opensAfterTest(new Gate());
    gates.put(n, gate);
    return gate;
  }

  void failAt(int n, RuntimeException error) {
    failures.put(n, error);
  }

  void barrierAt(int n, CyclicBarrier barrier) {
    barriers.put(n, barrier);
  }

  @Override
  public String render(RawBsonDocument document) {
    BsonValue nValue = document.get("n");
    int n = nValue != null && nValue.isInt32() ? nValue.asInt32().getValue() : -1;
    try {
      Gate gate = gates.get(n);
      if (gate != null) {
        gate.pass();
      }
      CyclicBarrier barrier = barriers.get(n);
      if (barrier != null) {
        barrier.await(20, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DocumentRenderException("interrupted", e);
    } catch (BrokenBarrierException | TimeoutException e) {
      throw new DocumentRenderException("barrier at document " + n + " was not met: " + e, e);
    }
    RuntimeException failure = failures.get(n);
    if (failure != null) {
      throw failure;
    }
    if (maxDelayMicros > 0) {
      long delay = new Random(seed * 31 + n).nextInt(maxDelayMicros + 1);
      LockSupport.parkNanos(Duration.ofNanos(delay * 1000).toNanos());
    }
    return delegate.render(document);
  }
}
