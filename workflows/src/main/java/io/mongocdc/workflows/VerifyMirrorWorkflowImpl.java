package io.mongocdc.workflows;

import io.mongocdc.workflows.model.VerifyPlan;
import io.mongocdc.workflows.model.VerifyProgress;
import io.mongocdc.workflows.model.VerifyRangeRequest;
import io.mongocdc.workflows.model.VerifyRangeResult;
import io.mongocdc.workflows.model.VerifyRequest;
import io.mongocdc.workflows.model.VerifyResult;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Plans the run, judges its ranges {@code parallelRanges} at a time, then sums it up. Every
 * range's verdict is in the catalog once its activity completes, so the figures the query shows
 * are the activities' results, and the summary is the catalog's.
 */
public final class VerifyMirrorWorkflowImpl implements VerifyMirrorWorkflow {

  private long runId;
  private int rangesTotal;
  private int rangesDone;
  private long documentsCompared;
  private long mismatches;
  private long repaired;
  private long unsettled;

  @Override
  public VerifyResult run(VerifyRequest request) {
    List<String> problems = request == null ? List.of("a verify request is required") : request.problems();
    if (!problems.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(String.join("; ", problems), FailureTypes.INVALID_CONFIGURATION);
    }
    VerifyPlan plan = stub(CdcActivityOptions.planSnapshot())
        .startVerify(request, Workflow.getInfo().getRunId());
    runId = plan.runId();
    rangesTotal = plan.rangesTotal();
    rangesDone = rangesTotal - plan.pendingRanges().size();

    VerifyActivity ranges = stub(CdcActivityOptions.verifyRange());
    Deque<Integer> pending = new ArrayDeque<>(plan.pendingRanges());
    List<Promise<VerifyRangeResult>> running = new ArrayList<>();
    int parallel = Math.max(1, request.parallelRanges() == null ? 1 : request.parallelRanges());
    while (!pending.isEmpty() || !running.isEmpty()) {
      while (!pending.isEmpty() && running.size() < parallel) {
        running.add(Async.function(ranges::verifyRange, new VerifyRangeRequest(request, runId, pending.removeFirst())));
      }
      Promise.anyOf(running).get();
      for (int i = running.size() - 1; i >= 0; i--) {
        Promise<VerifyRangeResult> promise = running.get(i);
        if (promise.isCompleted()) {
          running.remove(i);
          VerifyRangeResult result = promise.get();
          rangesDone++;
          documentsCompared += result.documentsCompared();
          mismatches += result.mismatches();
          repaired += result.repaired();
          unsettled += result.unsettled();
        }
      }
    }
    return stub(CdcActivityOptions.setup()).finishVerify(request, runId);
  }

  @Override
  public VerifyProgress progress() {
    return new VerifyProgress(runId, rangesTotal, rangesDone, documentsCompared, mismatches, repaired, unsettled);
  }

  private static VerifyActivity stub(ActivityOptions options) {
    return Workflow.newActivityStub(VerifyActivity.class, options);
  }
}
