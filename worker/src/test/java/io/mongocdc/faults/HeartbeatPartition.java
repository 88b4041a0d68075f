package io.mongocdc.faults;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.MethodDescriptor;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Cuts the worker's heartbeat path to Temporal: while cut, every RecordActivityTaskHeartbeat call
 * blocks on a latch until {@link #heal()}, so the activity stops heartbeating without sleeping and
 * the server times it out. Other calls (polls, completions, signals) pass.
 */
final class HeartbeatPartition implements ClientInterceptor {

  private volatile CountDownLatch healed;
  private final AtomicInteger held = new AtomicInteger();

  void cut() {
    healed = new CountDownLatch(1);
  }

  void heal() {
    CountDownLatch latch = healed;
    healed = null;
    if (latch != null) {
      latch.countDown();
    }
  }

  /** Heartbeat calls that were held while cut. */
  int held() {
    return held.get();
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    CountDownLatch latch = healed;
    if (latch != null && method.getFullMethodName().endsWith("/RecordActivityTaskHeartbeat")) {
      held.incrementAndGet();
      try {
        latch.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return next.newCall(method, options);
  }
}
