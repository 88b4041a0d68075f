package io.mongocdc.activities;

import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.Checkpoint;
import org.bson.BsonTimestamp;

/**
 * The edge between the workflow's {@link Checkpoint} (what histories carry) and the worker's
 * {@link StreamPosition} (what the pipeline, the snapshot and the catalog use). Activities convert
 * their requests' checkpoints here on the way in and their results on the way out; nothing
 * further in converts.
 */
public final class Checkpoints {

  private Checkpoints() {}

  public static Checkpoint of(StreamPosition position) {
    BsonTimestamp time = position.clusterTimeOrZero();
    long seconds = time.getTime() & 0xFFFFFFFFL;
    return position instanceof StreamPosition.AfterToken after
        ? Checkpoint.afterToken(after.token().data(), seconds, time.getInc())
        : Checkpoint.atOperationTime(seconds, time.getInc());
  }

  /** @throws InvalidMirrorConfigurationException if the token is not a resume token */
  public static StreamPosition toPosition(Checkpoint checkpoint) {
    if (checkpoint.resumeToken() != null) {
      try {
        return StreamPosition.after(ResumeToken.of(checkpoint.resumeToken()));
      } catch (IllegalArgumentException e) {
        throw new InvalidMirrorConfigurationException("the checkpoint is not a resume token: " + e.getMessage());
      }
    }
    return StreamPosition.atOperationTime(
        new BsonTimestamp((int) checkpoint.clusterTimeSeconds(), checkpoint.clusterTimeIncrement()));
  }
}
