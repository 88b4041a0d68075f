package io.mongocdc.activities;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.failure.ApplicationFailure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Classifies the failure of every activity in one place: an activity does its work and throws what
 * it throws, and what reaches Temporal is the failure {@link FailureClassifier#classify} makes of
 * it, named by the activity's type ({@code ActivityInfo.getActivityType()}, the names of {@code
 * ActivityNames}).
 *
 * <p>Two things pass unchanged: an {@link ApplicationFailure} the activity made itself (it is
 * classified already, or says something the classifier's advice would not: the start point's
 * refusal, the pull's failed attempt, a worker shutting down), and a cancellation or heartbeat
 * timeout the SDK reported, found among the causes, so it is reported as what it is.
 *
 * <p>It also clears an interrupt the activity left on its thread, on which the SDK then reports
 * the activity's end.
 *
 * <p>Every worker that runs the project's activities has it, innermost, so an interceptor a test
 * adds sees what production reports ({@code WorkerWiring}).
 */
public final class ActivityFailureInterceptor extends WorkerInterceptorBase {

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new Classifying(next);
  }

  private static final class Classifying extends ActivityInboundCallsInterceptorBase {

    private static final Logger log = LoggerFactory.getLogger(ActivityFailureInterceptor.class);

    private String activityType;

    Classifying(ActivityInboundCallsInterceptor next) {
      super(next);
    }

    @Override
    public void init(ActivityExecutionContext context) {
      activityType = context.getInfo().getActivityType();
      super.init(context);
    }

    @Override
    public ActivityOutput execute(ActivityInput input) {
      try {
        return super.execute(input);
      } catch (ApplicationFailure failure) {
        throw failure;
      } catch (RuntimeException e) {
        ActivityInterruption.rethrowIfCompletion(e);
        throw FailureClassifier.classify(activityType, e);
      } finally {
        clearStrayInterrupt();
      }
    }

    /**
     * The SDK reports the activity's end on this thread: an interrupt left on it (a heartbeat
     * timer that interrupts a wait as the wait ends) cancels that call, and the server then
     * learns of the end only at the heartbeat timeout (a cancelling pause waited a minute).
     */
    private void clearStrayInterrupt() {
      if (Thread.interrupted()) {
        log.debug("activity {}: cleared an interrupt left on its thread so that its end is reported", activityType);
      }
    }
  }
}
