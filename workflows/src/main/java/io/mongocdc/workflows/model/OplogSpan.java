package io.mongocdc.workflows.model;

/**
 * The span of history the source's oplog held when a batch ended: a checkpoint older than
 * {@code oldestSeconds} can no longer be resumed from.
 *
 * @param oldestSeconds cluster time (seconds) of the oldest oplog entry
 * @param newestSeconds cluster time (seconds) of the newest oplog entry
 */
public record OplogSpan(long oldestSeconds, long newestSeconds) {

  /** A checkpoint in the oldest quarter of the window gets a warning: time to act, not yet too late. */
  public static final double WARNING_SHARE = 0.25;

  /** Seconds the checkpoint may still fall behind before its history is gone; negative once it is. */
  public long headroomSeconds(Checkpoint checkpoint) {
    return checkpoint.clusterTimeSeconds() - oldestSeconds;
  }

  /** A warning for status, or null while the checkpoint is comfortably inside the window. */
  public String warning(Checkpoint checkpoint) {
    long headroom = headroomSeconds(checkpoint);
    long window = Math.max(0, newestSeconds - oldestSeconds);
    if (headroom < 0) {
      return "the committed checkpoint is older than the oplog: its history is gone; the mirror must be resynchronised";
    }
    if (headroom < window * WARNING_SHARE) {
      return "the committed checkpoint is in the oldest quarter of the oplog window (" + headroom + " s of " + window
          + " s left): the mirror must catch up or the oplog be enlarged before its history is lost";
    }
    return null;
  }
}
