package io.mongocdc.cli;

import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.model.MirrorIds;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** The mirror a command acts on, and how to reach its workflow. */
public final class MirrorArgument {

  @Parameters(index = "0", paramLabel = "MIRROR", description = "The mirror's name (its workflow is mirror-<name>).")
  String name;

  @Mixin TemporalOptions temporal;

  String workflowId() {
    return MirrorIds.workflowId(name);
  }

  /** The latest run of the mirror's workflow. */
  CdcFlowWorkflow workflow(WorkflowClient client) {
    return client.newWorkflowStub(CdcFlowWorkflow.class, workflowId());
  }

  WorkflowStub untyped(WorkflowClient client) {
    return client.newUntypedWorkflowStub(workflowId());
  }
}
