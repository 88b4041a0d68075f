package io.mongocdc.catalog;

import io.mongocdc.source.StreamPosition;
import java.time.Instant;
import java.util.Objects;

/**
 * A mirror's checkpoint row: the batch that committed it, where the next batch starts,
 * and when it was committed.
 */
public record StoredCheckpoint(String mirror, long batchId, StreamPosition position, Instant committedAt) {

  public StoredCheckpoint {
    Objects.requireNonNull(mirror, "mirror");
    Objects.requireNonNull(position, "position");
    Objects.requireNonNull(committedAt, "committedAt");
  }
}
