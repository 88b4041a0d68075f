package io.mongocdc.source.mongo;

import java.time.Duration;
import java.util.Objects;
import org.bson.BsonTimestamp;

/**
 * The span of history the oplog holds: a change stream can resume from a checkpoint only while
 * the checkpoint is newer than the oldest entry.
 *
 * @param oldest the first entry's timestamp
 * @param newest the last entry's timestamp
 */
public record OplogWindow(BsonTimestamp oldest, BsonTimestamp newest) {

  /** A checkpoint whose headroom is below this share of the window gets a warning. */
  public static final double WARNING_SHARE = 0.25;

  public OplogWindow {
    Objects.requireNonNull(oldest, "oldest");
    Objects.requireNonNull(newest, "newest");
  }

  public Duration length() {
    return Duration.ofSeconds(Math.max(0, newest.getTime() - oldest.getTime()));
  }

  /** How much older the checkpoint may get before its history is gone; negative if already gone. */
  public Duration headroom(BsonTimestamp checkpoint) {
    return Duration.ofSeconds(checkpoint.getTime() - oldest.getTime());
  }

  /** True when the checkpoint is within the oldest quarter of the window: time to act, not yet too late. */
  public boolean atRisk(BsonTimestamp checkpoint) {
    return headroom(checkpoint).toSeconds() < length().toSeconds() * WARNING_SHARE;
  }

  /** One line for status and logs. */
  public String describe(BsonTimestamp checkpoint) {
    Duration headroom = headroom(checkpoint);
    if (headroom.isNegative()) {
      return "the checkpoint is older than the oplog (window " + length() + "): its history is gone";
    }
    return "oplog window " + length() + ", checkpoint headroom " + headroom
        + (atRisk(checkpoint) ? " (WARNING: under " + Math.round(WARNING_SHARE * 100)
            + "% of the window; the mirror must catch up or the oplog be enlarged)" : "");
  }
}
