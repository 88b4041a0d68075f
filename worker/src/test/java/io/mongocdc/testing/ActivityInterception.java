package io.mongocdc.testing;

import io.temporal.activity.ActivityExecutionContext;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityInput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor.ActivityOutput;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptor;
import io.temporal.common.interceptors.ActivityInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkerInterceptor;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import java.util.function.Supplier;

/**
 * A worker interceptor that hands every activity execution of the production wiring to a test's
 * handler, with the execution's context (its type, attempt, heartbeat details), so a test can
 * script, count or fail activities without replacing the registered implementations.
 */
public final class ActivityInterception {

  /** What a test does with one activity execution. */
  @FunctionalInterface
  public interface Handler {
    /** @param proceed runs the registered activity implementation */
    ActivityOutput execute(ActivityExecutionContext context, ActivityInput input, Supplier<ActivityOutput> proceed);
  }

  private ActivityInterception() {}

  public static WorkerInterceptor of(Handler handler) {
    return new WorkerInterceptorBase() {
      @Override
      public ActivityInboundCallsInterceptor interceptActivity(ActivityInboundCallsInterceptor next) {
        return new ActivityInboundCallsInterceptorBase(next) {
          private ActivityExecutionContext context;

          @Override
          public void init(ActivityExecutionContext context) {
            this.context = context;
            super.init(context);
          }

          @Override
          public ActivityOutput execute(ActivityInput input) {
            return handler.execute(context, input, () -> super.execute(input));
          }
        };
      }
    };
  }
}
