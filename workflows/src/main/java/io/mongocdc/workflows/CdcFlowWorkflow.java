package io.mongocdc.workflows;

import io.mongocdc.workflows.model.EditResult;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.ResyncAccepted;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.SignalMethod;
import io.temporal.workflow.UpdateMethod;
import io.temporal.workflow.UpdateValidatorMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * One mirror's change data capture, as one long-running workflow with id {@code mirror-<name>}.
 *
 * <p>Every handler takes plain JSON, so operators can drive a mirror with the Temporal CLI, tctl
 * or the Web UI as well as with {@code mongo-cdc} (see {@code docs/operations.md}).
 *
 * <p>The input and the bodies are declared {@code Object}: the data converter hands them over as
 * decoded JSON (maps, lists, strings, numbers, booleans, null) and the workflow checks their
 * shape itself. Bound to records by the SDK, a body of the wrong shape would be dropped with a
 * log line (signals), answered with the JSON library's exception text (the update), or fail
 * every workflow task forever (the input). Typed callers pass the model records ({@link
 * io.mongocdc.workflows.model.CdcFlowInput}, {@link io.mongocdc.workflows.model.StopRequest}) or
 * a map for an edit; they are sent as the same JSON.
 */
@WorkflowInterface
public interface CdcFlowWorkflow {

  /**
   * Sets the mirror up once, then pulls and commits batches until terminated. An input that is
   * not a {@link io.mongocdc.workflows.model.CdcFlowInput} (an unknown field, a value of the wrong
   * type) fails the workflow at once with an {@code InvalidConfiguration} failure naming it.
   *
   * @param input a {@link io.mongocdc.workflows.model.CdcFlowInput}, as JSON
   * @return the final status, once terminated
   */
  @WorkflowMethod(name = "CdcFlow")
  MirrorStatus run(Object input);

  /**
   * Pauses at the next batch boundary; with {@code {"cancelInFlight": true}} cancels the batch
   * in flight instead (its records replay from the committed checkpoint on resume). The body is
   * optional; a body of another shape is not acted on and is listed in status with the reason.
   *
   * @param request null or a {@link io.mongocdc.workflows.model.StopRequest}, as JSON
   */
  @SignalMethod(name = "pause")
  void pause(Object request);

  /** Resumes a paused or failed mirror, or ends a backoff wait; a failed batch or setup is tried again. */
  @SignalMethod(name = "resume")
  void resume();

  /**
   * Stops the mirror for good at the next batch boundary (or at once with {@code
   * {"cancelInFlight": true}}); the workflow completes with the final status. A body of another
   * shape is not acted on and is listed in status with the reason.
   *
   * @param request null or a {@link io.mongocdc.workflows.model.StopRequest}, as JSON
   */
  @SignalMethod(name = "terminate")
  void terminate(Object request);

  /**
   * Asks for an edit of the settings, fire-and-forget: a valid edit applies from the next batch;
   * an invalid one (a body that is not an object included) is recorded in status as rejected,
   * with the reason, and never applied.
   *
   * @param edit a JSON object such as {@code {"batchSize": 5000}}
   */
  @SignalMethod(name = "edit")
  void requestEdit(Object edit);

  /**
   * Edits the settings and answers with those the next batch will use.
   *
   * @param edit a JSON object such as {@code {"batchSize": 5000}}
   */
  @UpdateMethod(name = "edit")
  EditResult edit(Object edit);

  /** Rejects a bad edit before it enters history, so the caller gets the reason at once. */
  @UpdateValidatorMethod(updateName = "edit")
  void validateEdit(Object edit);

  @QueryMethod(name = "status")
  MirrorStatus status();

  /**
   * Copies every collection again from a new starting point, into the existing tables, then
   * deletes the rows the copy did not see, then streams from there: what {@code autoResync} does
   * after the history was lost, asked for by the operator ({@code mongo-cdc mirror resync}). Edits
   * accepted before it take effect first, a field rule rewrite under way finishes before the
   * copy, and a paused or failed mirror goes on. Refused while the mirror terminates or before it
   * is set up.
   */
  @UpdateMethod(name = "resync")
  ResyncAccepted resync();

  @UpdateValidatorMethod(updateName = "resync")
  void validateResync();
}
