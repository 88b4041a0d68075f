package io.mongocdc.snapshot;

import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import java.time.Instant;
import java.util.Locale;
import org.bson.BsonTimestamp;

/**
 * The position copied rows carry: the checkpoint the snapshot started at. Every change event
 * after that checkpoint has a later position, so the destination applies each of them over the
 * copied row, and a copied row never overwrites a change applied before it.
 */
public final class SnapshotPosition {

  private SnapshotPosition() {}

  /**
   * The start as a token. An operation-time start becomes the KeyString prefix of its cluster
   * time ({@code 82} + seconds + increment): it sorts before every token of an event at or after
   * that time, which is exactly the set {@code startAtOperationTime} replays.
   */
  public static ResumeToken tokenOf(StreamPosition start) {
    if (start instanceof StreamPosition.AfterToken after) {
      return after.token();
    }
    BsonTimestamp time = start.clusterTime();
    return ResumeToken.of(String.format(Locale.ROOT, "82%08X%08X",
        time.getTime() & 0xFFFFFFFFL, time.getInc() & 0xFFFFFFFFL));
  }

  /** The commit time copied rows carry: the start's cluster time. */
  public static Instant commitTimeOf(StreamPosition start) {
    return Instant.ofEpochSecond(start.clusterTimeOrZero().getTime() & 0xFFFFFFFFL);
  }
}
