package io.mongocdc.workflows;

import static io.mongocdc.workflows.model.BatchFigures.ATTEMPTS;
import static io.mongocdc.workflows.model.BatchFigures.BYTES_READ;
import static io.mongocdc.workflows.model.BatchFigures.DURATION_MILLIS;
import static io.mongocdc.workflows.model.BatchFigures.END_REASON;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_READ;
import static io.mongocdc.workflows.model.BatchFigures.FRESHNESS;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_BY_TABLE;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.mongocdc.testing.ActivityInterception;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.BatchFreshness;
import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.PullRecordsRequest;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * PullRecords as the test drives it: each call waits (heartbeating, so a cancellation reaches it)
 * until the test gives it a step, then plays the step. Tests learn that a batch started from
 * {@link #nextCall()}, so nothing depends on timing.
 *
 * <p>The worker stays wired as production wires it; {@link #interceptor()} answers its PullRecords
 * calls from the script instead of the registered implementation.
 */
public final class ScriptedPullRecords {

  /** What one call does. */
  @FunctionalInterface
  public interface Step {
    BatchOutcome play(PullRecordsRequest request, ActivityExecutionContext context) throws Exception;
  }

  private static final Duration NO_STEP_LIMIT = Duration.ofSeconds(30);

  private final BlockingQueue<Step> steps = new LinkedBlockingQueue<>();
  private final BlockingQueue<PullRecordsRequest> started = new LinkedBlockingQueue<>();
  private final List<PullRecordsRequest> calls = new CopyOnWriteArrayList<>();

  /** Delivers {@code records} records: the checkpoint moves {@code records} positions on. */
  public static Step deliver(int records) {
    return (request, context) -> outcome(request, records, null, null);
  }

  /** Delivers {@code records} records, made visible as fresh as {@code freshness} says. */
  static Step deliver(int records, BatchFreshness freshness) {
    return (request, context) -> outcome(request, records, null, freshness);
  }

  /**
   * Heartbeats {@code details} until {@code release} opens (the batch runs on meanwhile, as a
   * long batch does), then delivers nothing.
   */
  public static Step heartbeatUntil(io.mongocdc.activities.PullHeartbeat details, java.util.concurrent.CountDownLatch release) {
    return (request, context) -> {
      do {
        context.heartbeat(details);
      } while (!release.await(50, TimeUnit.MILLISECONDS));
      return outcome(request, 0, null, null);
    };
  }

  /** Delivers {@code records} records, then stops before a control event (PAUSE policy). */
  static Step stopBefore(int records, String controlEvent) {
    return (request, context) -> outcome(request, records, controlEvent, null);
  }

  static Step fail(ApplicationFailure failure) {
    return (request, context) -> {
      throw failure;
    };
  }

  /** A retryable failure that asks to be retried at once, so tests do not wait for backoff. */
  static Step failTransiently(String message) {
    return fail(ApplicationFailure.newFailureWithCauseAndDelay(message, FailureTypes.TRANSIENT, null, Duration.ofMillis(1)));
  }

  public void then(Step... next) {
    steps.addAll(List.of(next));
  }

  /** The next call that started, waiting up to 20 s for it. */
  public PullRecordsRequest nextCall() throws InterruptedException {
    PullRecordsRequest request = started.poll(20, TimeUnit.SECONDS);
    assertNotNull(request, "PullRecords was not called");
    return request;
  }

  /** Forgets calls that started and were not taken by {@link #nextCall()}. */
  void drainCalls() {
    started.clear();
  }

  List<PullRecordsRequest> calls() {
    return List.copyOf(calls);
  }

  /** A worker interceptor that answers every PullRecords call from the script. */
  public WorkerInterceptor interceptor() {
    return ActivityInterception.of((context, input, proceed) ->
        ActivityNames.PULL_RECORDS.equals(context.getInfo().getActivityType())
            ? new ActivityOutput(pullRecords((PullRecordsRequest) input.getArguments()[0], context))
            : proceed.get());
  }

  private BatchOutcome pullRecords(PullRecordsRequest request, ActivityExecutionContext context) {
    calls.add(request);
    started.add(request);
    long deadline = System.nanoTime() + NO_STEP_LIMIT.toNanos();
    try {
      while (System.nanoTime() < deadline) {
        Step step = steps.poll(50, TimeUnit.MILLISECONDS);
        if (step != null) {
          return step.play(request, context);
        }
        context.heartbeat(null); // throws once the activity is cancelled
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw Activity.wrap(e);
    }
    throw ApplicationFailure.newNonRetryableFailure("the test gave batch " + request.batchId() + " no step", "TestScript");
  }

  /** A checkpoint {@code records} positions after {@code start}, in the token format of MongoDB. */
  static Checkpoint advance(Checkpoint start, int records) {
    if (records == 0) {
      return start;
    }
    int increment = start.clusterTimeIncrement() + records;
    return Checkpoint.afterToken(
        String.format("82%08X%08X04", start.clusterTimeSeconds(), increment), start.clusterTimeSeconds(), increment);
  }

  private static BatchOutcome outcome(PullRecordsRequest request, int records, String stoppedAt,
      BatchFreshness freshness) {
    BatchFigures figures = BatchFigures.zero().with(EVENTS_READ, records).with(RECORDS_DELIVERED, records)
        .with(BYTES_READ, records * 100L)
        .with(RECORDS_BY_TABLE, records == 0 ? Map.of() : Map.of("public.orders", (long) records))
        .with(DURATION_MILLIS, 5).with(END_REASON, stoppedAt == null ? "IDLE_TIMEOUT" : "CONTROL_EVENT")
        .with(ATTEMPTS, 1).with(FRESHNESS, freshness);
    return new BatchOutcome(request.batchId(), advance(request.start(), records), figures, stoppedAt, null);
  }
}
