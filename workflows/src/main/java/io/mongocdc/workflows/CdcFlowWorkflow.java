package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CdcFlowInput;
import io.mongocdc.workflows.model.EditResult;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.StopRequest;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.Map;

/**
 * One mirror's change data capture, as one long-running workflow with id {@code mirror-<name>}.
 *
 * <p>Every handler takes plain JSON, so operators can drive a mirror with the Temporal CLI, tctl
 * or the Web UI as well as with {@code mongo-cdc} (see {@code docs/operations.md}).
 */
@WorkflowInterface
public interface CdcFlowWorkflow {

  /**
   * Sets the mirror up once, then pulls and commits batches until terminated.
   *
   * @return the final status, once terminated
   */
  @WorkflowMethod(name = "CdcFlow")
  MirrorStatus run(CdcFlowInput input);

  /**
   * Pauses at the next batch boundary; with {@code {"cancelInFlight": true}} cancels the batch
   * in flight instead (its records replay from the committed checkpoint on resume). The body is
   * optional.
   */
  @SignalMethod(name = "pause")
  void pause(StopRequest request);

  /** Resumes a paused or failed mirror, or ends a backoff wait; a failed batch or setup is tried again. */
  @SignalMethod(name = "resume")
  void resume();

  /**
   * Stops the mirror for good at the next batch boundary (or at once with {@code
   * {"cancelInFlight": true}}); the workflow completes with the final status.
   */
  @SignalMethod(name = "terminate")
  void terminate(StopRequest request);

  /**
   * Asks for an edit of the settings, fire-and-forget: a valid edit applies from the next batch;
   * an invalid one is recorded in status as rejected, with the reason, and never applied.
   */
  @SignalMethod(name = "edit")
  void requestEdit(Map<String, Object> edit);

  /** Edits the settings and answers with those the next batch will use. */
  @UpdateMethod(name = "edit")
  EditResult edit(Map<String, Object> edit);

  /** Rejects a bad edit before it enters history, so the caller gets the reason at once. */
  @UpdateValidatorMethod(updateName = "edit")
  void validateEdit(Map<String, Object> edit);

  @QueryMethod(name = "status")
  MirrorStatus status();
}
