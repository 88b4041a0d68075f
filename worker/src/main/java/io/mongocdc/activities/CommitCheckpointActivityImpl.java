package io.mongocdc.activities;

import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.ports.CheckpointCommit;
import io.mongocdc.workflows.CommitCheckpointActivity;
import io.mongocdc.workflows.model.CommitCheckpointRequest;
import io.mongocdc.workflows.model.CommitResult;
import java.util.Objects;

/** Commits through the {@link CheckpointCatalog}, whose commit is monotonic and idempotent. */
public final class CommitCheckpointActivityImpl implements CommitCheckpointActivity {

  private final CheckpointCatalog catalog;

  public CommitCheckpointActivityImpl(CheckpointCatalog catalog) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  @Override
  public CommitResult commitCheckpoint(CommitCheckpointRequest request) {
    CheckpointCommit commit = catalog.commit(request.mirror(), request.batchId(),
        Checkpoints.toPosition(request.checkpoint()), request.figures());
    return new CommitResult(Checkpoints.of(commit.stored()), commit.advanced());
  }
}
