package io.mongocdc.activities;

import io.temporal.activity.Activity;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Heartbeats a long activity on a timer, besides after each step of progress: a snapshot cursor
 * can read for a long time without yielding a document (a filter that matches little of a large
 * partition), a destination statement can run for minutes, and that must not look like a lost
 * worker. The timer stops with the work, so a worker that dies still stops heartbeating.
 *
 * <p>A heartbeat that fails (the activity was cancelled or timed out) is kept and {@code
 * onFailure} runs once, which closes the cursor so a read blocked on the server ends too.
 */
final class PartitionHeartbeat implements AutoCloseable {

  /**
   * How often a long activity heartbeats when its work reports no progress: well inside the 30 s
   * heartbeat timeout.
   */
  static final Duration EVERY = Duration.ofSeconds(5);

  /** Sends one heartbeat; throws when the server refuses it (cancelled, timed out). */
  @FunctionalInterface
  interface Sender {
    void send(Object details);
  }

  private final Sender sender;
  private final Runnable onFailure;
  private final AtomicReference<Object> latest;
  private final AtomicReference<RuntimeException> failure = new AtomicReference<>();
  private final ScheduledExecutorService timer;

  PartitionHeartbeat(Sender sender, Object initial, Duration every, String threadName, Runnable onFailure) {
    this.sender = Objects.requireNonNull(sender, "sender");
    this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
    this.latest = new AtomicReference<>(initial);
    this.timer = Executors.newSingleThreadScheduledExecutor(task -> {
      Thread thread = new Thread(task, threadName);
      thread.setDaemon(true);
      return thread;
    });
    timer.scheduleWithFixedDelay(this::beat, every.toNanos(), every.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Heartbeats the running activity (call it on the activity's thread) every {@link #EVERY},
   * {@code initial} until progress says more; its timer thread is named after the mirror and the
   * work ({@code "field-rules"}, ...).
   */
  static PartitionHeartbeat ofActivity(String mirror, String work, Object initial) {
    return ofActivity(mirror, work, initial, () -> {});
  }

  /** {@link #ofActivity(String, String, Object)} running {@code onFailure} once a heartbeat fails. */
  static PartitionHeartbeat ofActivity(String mirror, String work, Object initial, Runnable onFailure) {
    return new PartitionHeartbeat(Activity.getExecutionContext()::heartbeat, initial, EVERY,
        "mongo-cdc-" + mirror + "-" + work + "-heartbeat", onFailure);
  }

  /** Records progress and sends it; rethrows a failure this or an earlier heartbeat met. */
  void progress(Object details) {
    latest.set(details);
    beat();
    throwIfFailed();
  }

  /** @throws RuntimeException the failure a heartbeat met, if any */
  void throwIfFailed() {
    RuntimeException failed = failure.get();
    if (failed != null) {
      throw failed;
    }
  }

  private void beat() {
    if (failure.get() != null) {
      return;
    }
    try {
      sender.send(latest.get());
    } catch (RuntimeException e) {
      if (failure.compareAndSet(null, e)) {
        onFailure.run();
      }
    }
  }

  /** Stops the timer and waits for a heartbeat in progress. */
  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
