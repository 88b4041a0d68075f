package io.mongocdc.faults;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.temporal.api.workflowservice.v1.RecordActivityTaskHeartbeatRequest;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Cuts the worker's heartbeat path to Temporal: while cut, every RecordActivityTaskHeartbeat call
 * blocks on a latch until {@link #heal()}, so the activity stops heartbeating without sleeping and
 * the server times it out. Other calls (polls, completions, signals) pass.
 *
 * <p>{@link #hold} cuts the heartbeats of one attempt only (its task token), until {@link
 * #release}: a snapshot partition's copy stalls while the partitions beside it heartbeat on.
 *
 * <p>It also answers for the server where the test server is not faithful: a Temporal server
 * answers a heartbeat of an attempt it already timed out with NOT_FOUND (the task token names the
 * attempt), which tells the lost attempt to stop; the test server accepts it. Heartbeats of a
 * {@link #fence fenced} task token are answered NOT_FOUND here.
 */
final class HeartbeatPartition implements ClientInterceptor {

  private volatile CountDownLatch healed;
  private final AtomicInteger held = new AtomicInteger();
  private final AtomicInteger refused = new AtomicInteger();
  private final Set<ByteString> fenced = ConcurrentHashMap.newKeySet();
  private final Map<ByteString, CountDownLatch> holds = new ConcurrentHashMap<>();

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

  /** Holds every heartbeat of the attempt with this task token until {@link #release}. */
  void hold(ByteString taskToken) {
    holds.putIfAbsent(taskToken, new CountDownLatch(1));
  }

  /** Lets the held heartbeats of this attempt go (after a {@link #fence}, they are answered NOT_FOUND). */
  void release(ByteString taskToken) {
    CountDownLatch latch = holds.remove(taskToken);
    if (latch != null) {
      latch.countDown();
    }
  }

  /** Lets every held attempt's heartbeats go. */
  void releaseAll() {
    List.copyOf(holds.keySet()).forEach(this::release);
  }

  /** From now on, heartbeats with this task token are answered NOT_FOUND, as the server would. */
  void fence(ByteString taskToken) {
    fenced.add(taskToken);
  }

  /** Heartbeat calls that were held while cut. */
  int held() {
    return held.get();
  }

  /** Heartbeats answered NOT_FOUND because their attempt was fenced. */
  int refused() {
    return refused.get();
  }

  @Override
  public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
    if (!method.getFullMethodName().endsWith("/RecordActivityTaskHeartbeat")) {
      return next.newCall(method, options);
    }
    CountDownLatch latch = healed;
    if (latch != null) {
      held.incrementAndGet();
      try {
        latch.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return new FencedHeartbeat<>(next.newCall(method, options));
  }

  /** A heartbeat call that, for a fenced attempt, is cancelled before it is sent and closes NOT_FOUND. */
  private final class FencedHeartbeat<Q, R> extends ForwardingClientCall.SimpleForwardingClientCall<Q, R> {
    private volatile boolean refusedHere;

    FencedHeartbeat(ClientCall<Q, R> delegate) {
      super(delegate);
    }

    @Override
    public void start(Listener<R> listener, Metadata headers) {
      super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<R>(listener) {
        @Override
        public void onClose(Status status, Metadata trailers) {
          if (refusedHere) {
            super.onClose(Status.NOT_FOUND.withDescription("activity attempt timed out (answered by the fault"
                + " harness as a Temporal server does)"), new Metadata());
          } else {
            super.onClose(status, trailers);
          }
        }
      }, headers);
    }

    @Override
    public void sendMessage(Q message) {
      if (message instanceof RecordActivityTaskHeartbeatRequest request) {
        CountDownLatch hold = holds.get(request.getTaskToken());
        if (hold != null) {
          held.incrementAndGet();
          try {
            hold.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      }
      if (message instanceof RecordActivityTaskHeartbeatRequest request && fenced.contains(request.getTaskToken())) {
        refusedHere = true;
        refused.incrementAndGet();
        delegate().cancel("fenced attempt", null);
        return;
      }
      super.sendMessage(message);
    }

    @Override
    public void halfClose() {
      if (!refusedHere) {
        super.halfClose();
      }
    }
  }
}
