package io.mongocdc.testing;

import io.mongocdc.workflows.ActivityNames;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import java.time.Duration;
import java.util.Set;

/**
 * A test's worker schedules the activities that heartbeat, PullRecords, CopySnapshotPartition and
 * VerifyRange, with a shorter heartbeat timeout than the workflows ask for (30 s). The
 * test server cannot skip time while an activity is outstanding, so a lost or stalled attempt is
 * waited out in real time; a short timeout keeps that wait short while the rest of the workflow
 * runs unchanged. Applied on every replay alike, so histories stay deterministic.
 */
public final class ShortHeartbeatTimeout extends WorkerInterceptorBase {

  private static final Set<String> HEARTBEATING = Set.of(ActivityNames.PULL_RECORDS,
      ActivityNames.COPY_SNAPSHOT_PARTITION, ActivityNames.VERIFY_RANGE);

  private final Duration timeout;

  public ShortHeartbeatTimeout(Duration timeout) {
    this.timeout = timeout;
  }

  @Override
  public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
    return new WorkflowInboundCallsInterceptorBase(next) {
      @Override
      public void init(WorkflowOutboundCallsInterceptor outbound) {
        super.init(new WorkflowOutboundCallsInterceptorBase(outbound) {
          @Override
          public <R> ActivityOutput<R> executeActivity(ActivityInput<R> input) {
            if (!HEARTBEATING.contains(input.getActivityName())) {
              return super.executeActivity(input);
            }
            ActivityOptions shorter = ActivityOptions.newBuilder(input.getOptions()).setHeartbeatTimeout(timeout).build();
            return super.executeActivity(new ActivityInput<>(input.getActivityName(), input.getResultClass(),
                input.getResultType(), input.getArgs(), shorter, input.getHeader()));
          }
        });
      }
    };
  }
}
