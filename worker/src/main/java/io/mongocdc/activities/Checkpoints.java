package io.mongocdc.activities;

import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.Checkpoint;
import java.util.Comparator;
import org.bson.BsonTimestamp;

/** Converts between the workflow's {@link Checkpoint} and the pipeline's {@link StreamPosition}. */
public final class Checkpoints {

  /**
   * Stream order: by cluster time, then a token (after an event at that time) after an operation
   * time (at that time, inclusive), then tokens by their bytes.
   */
  public static final Comparator<Checkpoint> STREAM_ORDER = Comparator
      .comparingLong(Checkpoint::clusterTimeSeconds)
      .thenComparingInt(Checkpoint::clusterTimeIncrement)
      .thenComparing(Checkpoints::tokenOrNull, Comparator.nullsFirst(Comparator.naturalOrder()));

  private Checkpoints() {}

  public static Checkpoint of(StreamPosition position) {
    if (position instanceof StreamPosition.AfterToken after) {
      BsonTimestamp time = clusterTimeOrZero(after.token());
      return Checkpoint.afterToken(after.token().data(), time.getTime() & 0xFFFFFFFFL, time.getInc());
    }
    BsonTimestamp time = ((StreamPosition.AtOperationTime) position).clusterTime();
    return Checkpoint.atOperationTime(time.getTime() & 0xFFFFFFFFL, time.getInc());
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

  /** True if {@code candidate} is strictly later in the stream than {@code reference}. */
  public static boolean isAfter(Checkpoint candidate, Checkpoint reference) {
    return STREAM_ORDER.compare(candidate, reference) > 0;
  }

  private static ResumeToken tokenOrNull(Checkpoint checkpoint) {
    return checkpoint.resumeToken() == null ? null : ResumeToken.of(checkpoint.resumeToken());
  }

  private static BsonTimestamp clusterTimeOrZero(ResumeToken token) {
    try {
      return token.clusterTime();
    } catch (IllegalStateException e) {
      // A token without a leading cluster time still orders by its bytes; age is then unknown.
      return new BsonTimestamp(0, 0);
    }
  }
}
