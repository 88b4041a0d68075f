package io.mongocdc.workflows;

import io.mongocdc.workflows.model.VerifyPlan;
import io.mongocdc.workflows.model.VerifyRangeRequest;
import io.mongocdc.workflows.model.VerifyRangeResult;
import io.mongocdc.workflows.model.VerifyRequest;
import io.mongocdc.workflows.model.VerifyResult;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** The steps of a verify run: plan its ranges, judge one range, sum the run up. */
@ActivityInterface
public interface VerifyActivity {

  /**
   * Plans the run (each collection's {@code _id} ranges, from the snapshot's partition planner)
   * and stores it, or returns the run this workflow run stored already.
   *
   * @param workflowRunId the workflow run that owns the run
   */
  @ActivityMethod(name = ActivityNames.START_VERIFY)
  VerifyPlan startVerify(VerifyRequest request, String workflowRunId);

  /**
   * Compares one range on both sides, narrows a difference down to the {@code _id}s, judges them
   * once the mirror has passed the source reads, repairs them if asked, and records the range
   * done. A range already done is not read again: its recorded figures are returned.
   */
  @ActivityMethod(name = ActivityNames.VERIFY_RANGE)
  VerifyRangeResult verifyRange(VerifyRangeRequest request);

  /** Marks the run done and returns its figures per collection. */
  @ActivityMethod(name = ActivityNames.FINISH_VERIFY)
  VerifyResult finishVerify(VerifyRequest request, long runId);
}
