package io.mongocdc.ports;

import io.mongocdc.source.StreamPosition;
import java.util.Objects;

/**
 * What committing a batch's checkpoint left in the catalog.
 *
 * @param storedBatchId the batch that committed the stored checkpoint
 * @param stored the mirror's checkpoint after the commit
 */
public record CheckpointCommit(Outcome outcome, long storedBatchId, StreamPosition stored) {

  public CheckpointCommit {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(stored, "stored");
  }

  public enum Outcome {
    /** The checkpoint moved to the committed one. */
    APPLIED,
    /** The stored checkpoint is the same or newer; nothing changed (a replay or a late commit). */
    NOT_NEWER,
    /**
     * Refused: the batch id is newer but its position is earlier than the stored one, which would
     * move the stream backwards. Nothing changed; the caller has a bug or two writers.
     */
    POSITION_BEHIND
  }

  public boolean advanced() {
    return outcome == Outcome.APPLIED;
  }
}
