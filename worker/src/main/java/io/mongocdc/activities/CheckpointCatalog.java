package io.mongocdc.activities;

import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.CommitResult;
import io.mongocdc.workflows.model.MirrorConfig;
import java.util.Optional;

/** The catalog's record of mirrors, their committed checkpoints and their batch history. */
public interface CheckpointCatalog {

  /**
   * Registers the mirror (peer names and settings, never credentials); idempotent.
   *
   * @return the checkpoint already committed for it, if it existed before
   */
  Optional<Checkpoint> register(MirrorConfig mirror);

  /**
   * Records a batch and moves the mirror's checkpoint to {@code checkpoint}, monotonically: a
   * commit for an older batch, or of an older position, records the batch row but never moves
   * the stored checkpoint back. Committing the same batch again is a no-op.
   */
  CommitResult commit(String mirror, long batchId, Checkpoint checkpoint, BatchFigures figures);

  Optional<Checkpoint> committed(String mirror);

  /** Deletes the mirror's rows (on an operator's explicit request only). */
  void forget(String mirror);
}
