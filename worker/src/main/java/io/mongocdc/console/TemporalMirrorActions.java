package io.mongocdc.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.secrets.Redaction;
import io.mongocdc.workflows.CdcFlowWorkflow;
import io.mongocdc.workflows.VerifyMirrorStart;
import io.mongocdc.workflows.model.EditResult;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorIds;
import io.mongocdc.workflows.model.StopRequest;
import io.mongocdc.workflows.model.VerifyRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowUpdateException;
import io.temporal.failure.TemporalFailure;
import java.util.function.Supplier;

/** The console's actions through the Temporal calls the {@code mongo-cdc mirror} commands make. */
public final class TemporalMirrorActions implements MirrorActions {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final WorkflowClient client;
  private final String taskQueue;

  public TemporalMirrorActions(WorkflowClient client, String taskQueue) {
    this.client = client;
    this.taskQueue = taskQueue;
  }

  private CdcFlowWorkflow workflow(String mirror) {
    return client.newWorkflowStub(CdcFlowWorkflow.class, MirrorIds.workflowId(mirror));
  }

  @Override
  public String pause(String mirror) {
    refusing(() -> workflow(mirror).pause(new StopRequest(false)));
    return "pause requested for mirror " + mirror + " (at the end of the batch in flight)";
  }

  @Override
  public String resume(String mirror) {
    refusing(() -> workflow(mirror).resume());
    return "resume requested for mirror " + mirror;
  }

  @Override
  public String verify(String mirror) {
    return refusing(() -> {
      MirrorConfig config = workflow(mirror).status().config();
      VerifyMirrorStart started;
      try {
        started = VerifyMirrorStart.start(client, taskQueue, new VerifyRequest(config, false, null, null));
      } catch (IllegalArgumentException e) {
        throw new ActionRefusedException(e.getMessage());
      }
      return started.alreadyRunning()
          ? "a verify of mirror " + mirror + " runs already (workflow " + started.workflowId() + ")"
          : "verify of mirror " + mirror + " started (workflow " + started.workflowId() + "); its runs show below as"
              + " it goes";
    });
  }

  @Override
  public String edit(String mirror, String json) {
    Object edit;
    try {
      edit = JSON.readValue(json, Object.class);
    } catch (JsonProcessingException e) {
      throw new ActionRefusedException("invalid edit: not JSON: " + e.getOriginalMessage());
    }
    EditResult result = refusing(() -> workflow(mirror).edit(edit));
    return "edited mirror " + mirror + "; it applies from batch " + result.appliesFromBatch();
  }

  private static void refusing(Runnable call) {
    refusing(() -> {
      call.run();
      return null;
    });
  }

  /** Runs a Temporal call; a failure becomes the reason at its root, as the CLI shows it. */
  private static <T> T refusing(Supplier<T> call) {
    try {
      return call.get();
    } catch (ActionRefusedException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new ActionRefusedException(Redaction.redact(reasonOf(e)));
    }
  }

  private static String reasonOf(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof WorkflowNotFoundException) {
        return "the mirror's workflow is not running";
      }
      if (t instanceof WorkflowUpdateException update && update.getCause() != null) {
        Throwable cause = update.getCause();
        return "rejected: " + (cause instanceof TemporalFailure temporal ? temporal.getOriginalMessage()
            : cause.getMessage());
      }
    }
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root instanceof TemporalFailure temporal ? temporal.getOriginalMessage() : String.valueOf(root.getMessage());
  }
}
