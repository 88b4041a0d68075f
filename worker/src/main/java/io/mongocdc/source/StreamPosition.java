package io.mongocdc.source;

import java.util.Comparator;
import java.util.Objects;
import org.bson.BsonTimestamp;

/**
 * Where a change stream starts: after a resume token, or at a cluster time (inclusive).
 *
 * <p>A mirror's checkpoint is a position: a resume token once anything was delivered or a
 * post-batch token was seen, otherwise the operation time it was created at.
 */
public sealed interface StreamPosition {

  /**
   * Stream order: by cluster time, then a token (after an event at that time) after an operation
   * time (at that time, inclusive), then tokens by their bytes.
   */
  Comparator<StreamPosition> STREAM_ORDER = Comparator
      .comparing(StreamPosition::clusterTimeOrZero)
      .thenComparing(StreamPosition::tokenOrNull, Comparator.nullsFirst(Comparator.naturalOrder()));

  /** Resume after the event (or post-batch point) this token names: {@code resumeAfter}. */
  record AfterToken(ResumeToken token) implements StreamPosition {
    public AfterToken {
      Objects.requireNonNull(token, "token");
    }

    @Override
    public String toString() {
      return "after " + token;
    }
  }

  /** Start at this cluster time, inclusive: {@code startAtOperationTime}. */
  record AtOperationTime(BsonTimestamp clusterTime) implements StreamPosition {
    public AtOperationTime {
      Objects.requireNonNull(clusterTime, "clusterTime");
    }

    @Override
    public String toString() {
      return "at operation time " + clusterTime.getTime() + "." + clusterTime.getInc();
    }
  }

  static StreamPosition after(ResumeToken token) {
    return new AfterToken(token);
  }

  static StreamPosition atOperationTime(BsonTimestamp clusterTime) {
    return new AtOperationTime(clusterTime);
  }

  /**
   * The cluster time of this position: the operation time, or the time encoded in the token
   * (an event's commit time, or the server's time for a post-batch token). Checkpoint lag is
   * measured against it.
   */
  default BsonTimestamp clusterTime() {
    return this instanceof AfterToken after ? after.token().clusterTime() : ((AtOperationTime) this).clusterTime();
  }

  /**
   * {@link #clusterTime}, or zero for a token that does not start with one: such a token still
   * orders by its bytes, but its age is unknown.
   */
  default BsonTimestamp clusterTimeOrZero() {
    try {
      return clusterTime();
    } catch (IllegalStateException e) {
      return new BsonTimestamp(0, 0);
    }
  }

  /** True if this position is strictly later in the stream than {@code other}. */
  default boolean isAfter(StreamPosition other) {
    return STREAM_ORDER.compare(this, other) > 0;
  }

  /** The token of this position, or null when it is an operation time. */
  default ResumeToken tokenOrNull() {
    return this instanceof AfterToken after ? after.token() : null;
  }
}
