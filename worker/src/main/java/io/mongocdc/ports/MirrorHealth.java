package io.mongocdc.ports;

import io.mongocdc.workflows.model.CopyTimeLeft;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.SnapshotProgress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One mirror's health as the catalog records it: what an alert needs to fire while no batch runs
 * (a failed, paused or stalled mirror reports nothing of its own).
 *
 * @param state the workflow's state as it last recorded it
 * @param stateSince when it entered that state; null if unknown
 * @param committedAt when the last checkpoint was committed; null before the first
 * @param committedClusterSeconds the committed checkpoint's cluster time (seconds); before the first
 *     commit, where the stream will start: the start of a copy under way (whose headroom is what a
 *     first snapshot must finish within); null before the first commit otherwise
 * @param oplogOldestSeconds the oldest oplog entry's cluster time (seconds) when a batch last read the
 *     span; null when the source does not report it
 * @param oplogObservedAt when that span was read; null with it
 * @param quarantinedEvents events set aside and not replayed
 * @param verifyDifferences documents the last finished verify run confirmed to differ and did not
 *     repair; null when no verify run has finished
 * @param snapshots every collection's snapshot as {@code snapshot_collections} records it (its
 *     start as an operation time; plan and finish times from the catalog's clock), from which {@link
 *     #copySecondsLeft} reckons the running copy's time left
 */
public record MirrorHealth(String mirror, MirrorPhase state, Instant stateSince, Instant committedAt,
    Long committedClusterSeconds, Long oplogOldestSeconds, Instant oplogObservedAt, long quarantinedEvents,
    Long verifyDifferences, List<SnapshotProgress> snapshots) {

  public MirrorHealth {
    snapshots = snapshots == null ? List.of() : List.copyOf(snapshots);
  }

  /**
   * Seconds the running copy is expected to take still ({@link CopyTimeLeft}); 0 when no copy is
   * under way, NaN until one of its partitions has finished.
   */
  public double copySecondsLeft(Instant now) {
    Long seconds = CopyTimeLeft.seconds(snapshots, now.toEpochMilli());
    return seconds == null ? Double.NaN : seconds;
  }

  /** Seconds in the current state; NaN if unknown. */
  public double stateSeconds(Instant now) {
    return stateSince == null ? Double.NaN : secondsBetween(stateSince, now);
  }

  /** Seconds since a checkpoint was last committed; NaN before the first. */
  public double checkpointAgeSeconds(Instant now) {
    return committedAt == null ? Double.NaN : secondsBetween(committedAt, now);
  }

  /**
   * Seconds the committed checkpoint may still fall behind before the oplog no longer holds it;
   * negative once it does not, NaN when unknown. The oplog's oldest entry is taken to move on at
   * the rate of the clock since the span was read (its window length held steady): while a quiet
   * source leaves it in place, the figure errs low, towards an early alert.
   */
  public double oplogHeadroomSeconds(Instant now) {
    if (committedClusterSeconds == null || oplogOldestSeconds == null || oplogObservedAt == null) {
      return Double.NaN;
    }
    return committedClusterSeconds - oplogOldestSeconds - secondsBetween(oplogObservedAt, now);
  }

  private static double secondsBetween(Instant from, Instant to) {
    return Math.max(0, Duration.between(from, to).toMillis()) / 1000.0;
  }
}
