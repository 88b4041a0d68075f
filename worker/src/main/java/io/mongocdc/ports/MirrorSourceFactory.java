package io.mongocdc.ports;

import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.OplogSpan;

/**
 * The MongoDB side of a mirror. Implementations resolve the mirror's source peer through the
 * worker's {@link PeerRegistry}; credentials never pass through the activities.
 */
public interface MirrorSourceFactory {

  /**
   * Checks the source peer is reachable and the database exists.
   *
   * @throws InvalidMirrorConfigurationException, PeerAuthenticationException, or a transient
   *     failure to retry
   */
  void validate(MirrorConfig mirror);

  /** Opens the mirror's change stream (the database, restricted to its collections). */
  ChangeStreamOpener openerFor(MirrorConfig mirror);

  /**
   * The span of history the source's oplog holds now, or null if the source cannot tell (no
   * privilege to read it, or no oplog). Read after each batch, for status and metrics.
   */
  default OplogSpan oplogSpan(MirrorConfig mirror) {
    return null;
  }

  /**
   * Reads the mirror's source database for a snapshot. The caller closes it.
   *
   * @throws InvalidMirrorConfigurationException if this source cannot snapshot
   */
  default SnapshotSource snapshotSource(MirrorConfig mirror) {
    throw new InvalidMirrorConfigurationException(
        "this source cannot copy existing documents; create the mirror with the snapshot off");
  }

  /** The source's current operation time: where a new mirror starts reading. */
  StreamPosition currentPosition(MirrorConfig mirror);

  /**
   * Checks that the source's history holds {@code start}, a new mirror's chosen start point: not
   * later than the source's time now, not before the oldest event its history holds, and (for a
   * token) an event the history still has. This default opens the stream there and lets the
   * source refuse it.
   *
   * @throws InvalidMirrorConfigurationException naming the oldest point held, when known
   */
  default void requireHistoryHolds(MirrorConfig mirror, StreamPosition start) {
    StartPointCheck.require(start, currentPosition(mirror), null, openerFor(mirror));
  }

  /**
   * The source's position now, for verify: a read made after this call sees at least every
   * change up to it, and the mirror has applied them once its checkpoint is at or past it. The
   * same as {@link #currentPosition} for a real source; a generator whose new mirrors start
   * before its first event says how far its stream has got.
   */
  default StreamPosition readPosition(MirrorConfig mirror) {
    return currentPosition(mirror);
  }
}
