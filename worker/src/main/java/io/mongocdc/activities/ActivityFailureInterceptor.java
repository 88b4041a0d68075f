package io.mongocdc.activities;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.failure.ApplicationFailure;

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
 * <p>Every worker that runs the project's activities has it, innermost, so an interceptor a test
 * adds sees what production reports ({@code WorkerWiring}).
 */
public final class ActivityFailureInterceptor extends WorkerInterceptorBase {

  @Override
  public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
    return new Classifying(next);
  }

  private static final class Classifying extends ActivityInboundCallsInterceptorBase {

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
      }
    }
  }
}
