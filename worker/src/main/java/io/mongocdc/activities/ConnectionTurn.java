package io.mongocdc.activities;

import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.pipeline.TurnSignal;
import io.mongocdc.ports.ConnectionLease;
import java.time.Duration;
import java.time.Instant;
import java.util.function.LongSupplier;
import org.bson.RawBsonDocument;

/**
 * When a batch whose destination connections other batches wait for has had its turn: at once
 * when it finds nothing more to read; after {@link #AT_TAIL_AT_LEAST} once it reads at the live
 * tail of its stream (its events are less than {@link #LIVE_TAIL} old, so it only trickles what
 * the source writes now, which the next turn reads as well); else after the worker's turn
 * ({@code PullTuning.connectionTurn}), backlog or not. Never while nobody waits.
 */
final class ConnectionTurn implements TurnSignal {

  /** Events this recent, by their {@code wallTime} (or cluster time), are at the stream's live tail. */
  static final Duration LIVE_TAIL = Duration.ofSeconds(1);
  /** The least a batch reading at the live tail runs: its fixed costs stay a small share of its turn. */
  static final Duration AT_TAIL_AT_LEAST = Duration.ofMillis(500);
  /** How often the reader's latest event is looked at: reading a field of each would cost per event. */
  private static final long TAIL_CHECK_EVERY_NANOS = Duration.ofMillis(50).toNanos();

  private final ConnectionLease lease;
  private final long turnNanos;
  private final LongSupplier wallMillis;
  private long nextTailCheckNanos = AT_TAIL_AT_LEAST.toNanos();

  /** @param wallMillis the wall clock, in epoch milliseconds, to compare events' times with */
  ConnectionTurn(ConnectionLease lease, Duration turn, LongSupplier wallMillis) {
    this.lease = lease;
    this.turnNanos = turn.toNanos();
    this.wallMillis = wallMillis;
  }

  @Override
  public boolean over(long elapsedNanos, RawBsonDocument latest) {
    if (!lease.othersWait()) {
      return false;
    }
    if (latest == null || elapsedNanos >= turnNanos) {
      return true;
    }
    if (elapsedNanos < nextTailCheckNanos) {
      return false;
    }
    nextTailCheckNanos = elapsedNanos + TAIL_CHECK_EVERY_NANOS;
    return atLiveTail(latest, wallMillis.getAsLong());
  }

  /**
   * Whether {@code event} was committed less than {@link #LIVE_TAIL} before {@code nowMillis}, by
   * the commit time its record gets ({@link ChangeEventDecoder#commitTimeOf}); one the decoder
   * cannot read is not known to be at the tail.
   */
  static boolean atLiveTail(RawBsonDocument event, long nowMillis) {
    Instant at;
    try {
      at = ChangeEventDecoder.commitTimeOf(event);
    } catch (RuntimeException e) {
      return false;
    }
    return at != null && at.toEpochMilli() >= nowMillis - LIVE_TAIL.toMillis();
  }
}
