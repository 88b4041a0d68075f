package io.mongocdc.verify;

import io.mongocdc.snapshot.SnapshotPosition;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;

/**
 * The positions verify judges by. A source read made after the source said it was at position
 * {@code t} sees every change up to {@code t}; the destination shows them once the mirror's
 * checkpoint has reached {@link #of bound(t)}, the last position a change at or before {@code t}
 * can have. A row is judged only when both hold: its position is at most the bound of the read's
 * start (no change of that document came during the read) and the checkpoint has passed the
 * bound of the read's end (every change before the read is applied).
 */
public final class ReadBound {

  /** Above every byte a KeyString can have after a prefix: {@code 0xF0} is MaxKey, the largest type. */
  private static final String ABOVE = "FF";

  private ReadBound() {}

  /**
   * The highest position of a change at or before {@code t}: the token itself after a token;
   * for an operation time, its KeyString prefix extended above every event at that time.
   */
  public static ResumeToken of(StreamPosition t) {
    if (t instanceof StreamPosition.AfterToken after) {
      return after.token();
    }
    return ResumeToken.of(SnapshotPosition.tokenOf(t).data() + ABOVE);
  }

  /**
   * The position a repaired row carries when its document was read after {@code t}: after every
   * change at or before {@code t}, before every later one, so a change streamed after the read
   * still wins over the repair.
   */
  public static ResumeToken repairPosition(StreamPosition t) {
    return ResumeToken.of(of(t).data() + ABOVE);
  }

  /** True once the checkpoint covers every change at or before {@code t}. */
  public static boolean passed(StreamPosition checkpoint, StreamPosition t) {
    if (checkpoint == null) {
      return false;
    }
    ResumeToken at = checkpoint instanceof StreamPosition.AfterToken after ? after.token()
        : SnapshotPosition.tokenOf(checkpoint);
    return at.compareTo(of(t)) >= 0;
  }
}
