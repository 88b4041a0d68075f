package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Namespace;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Which records a batch replays over a snapshot copy that already made them visible: those whose
 * source commit time is before the end of their collection's latest finished copy. Batches after
 * a copy resume from where it started, so they apply again every change made while it copied
 * (the copy already holds most of them); counted at their source commit times, those replays
 * would read as minutes of lag. They are left out of the freshness figures, not out of the batch.
 *
 * <p>The copy's end is a catalog time and a record's commit time the source's, so they are only
 * as comparable as those two clocks agree; a skew of a few seconds misjudges a few seconds of
 * records after the copy.
 */
public final class CopyReplays {

  public static final CopyReplays NONE = new CopyReplays(Map.of());

  /** Epoch milliseconds each collection's copy ended at. */
  private final Map<Namespace, Long> copyEnds;
  /** The latest of them: a record after it is no replay, with no look-up. */
  private final long latestEnd;

  private CopyReplays(Map<Namespace, Long> copyEnds) {
    this.copyEnds = copyEnds;
    this.latestEnd = copyEnds.values().stream().mapToLong(Long::longValue).max().orElse(Long.MIN_VALUE);
  }

  /** @param copyEnds when the latest finished copy of each collection ended */
  public static CopyReplays of(Map<Namespace, Instant> copyEnds) {
    if (copyEnds.isEmpty()) {
      return NONE;
    }
    Map<Namespace, Long> millis = new HashMap<>();
    copyEnds.forEach((namespace, end) -> millis.put(namespace, end.toEpochMilli()));
    return new CopyReplays(millis);
  }

  /** Whether a copy of the record's collection ended after the record's source commit. */
  boolean isReplay(ChangeRecord record) {
    long committed = record.commitTime().toEpochMilli();
    if (committed >= latestEnd) {
      return false;
    }
    Long end = copyEnds.get(record.source());
    return end != null && committed < end;
  }
}
