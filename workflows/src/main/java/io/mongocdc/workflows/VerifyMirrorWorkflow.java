package io.mongocdc.workflows;

import io.mongocdc.workflows.model.VerifyProgress;
import io.mongocdc.workflows.model.VerifyRequest;
import io.mongocdc.workflows.model.VerifyResult;
import io.temporal.workflow.QueryMethod;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;

/**
 * Compares a mirror's destination with its source, range by range, on the cluster: workflow id
 * {@code verify-<mirror>}. A lost worker's range is judged again by another worker; ranges
 * judged are recorded in the catalog and not read again.
 */
@WorkflowInterface
public interface VerifyMirrorWorkflow {

  @WorkflowMethod(name = "VerifyMirror")
  VerifyResult run(VerifyRequest request);

  @QueryMethod(name = "progress")
  VerifyProgress progress();
}
