package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CommitCheckpointRequest;
import io.mongocdc.workflows.model.CommitResult;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Writes a batch's checkpoint and figures to the catalog, monotonically. */
@ActivityInterface
public interface CommitCheckpointActivity {

  @ActivityMethod(name = ActivityNames.COMMIT_CHECKPOINT)
  CommitResult commitCheckpoint(CommitCheckpointRequest request);
}
