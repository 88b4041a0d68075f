package io.mongocdc.activities;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How long a batch runs once it has the destination connections it waited for. Its maximum
 * duration counts from the activity's start, as its timeout does, so a batch that waited would end
 * that much sooner; but a batch whose maximum duration is shorter than the wait would then get the
 * least run after every wait (one second after a minute's wait, while batches of longer mirrors run
 * their whole turn): its turn must not pay for the wait. So a batch that waited runs at least a
 * fair turn, the worker's connection turn or its own maximum duration if shorter, as far as its
 * start-to-close timeout allows with {@link #FINAL_COMMIT_RESERVE} left for its final commit.
 */
final class TurnAfterWaiting {

  /** The least a batch that waited for its connections still runs. */
  static final Duration AT_LEAST = Duration.ofSeconds(1);
  /** What a batch keeps of its start-to-close timeout for its final commit and shutdown. */
  static final Duration FINAL_COMMIT_RESERVE = Duration.ofSeconds(30);

  private final Duration maxBatch;
  private final Duration turn;
  private final Duration timeout;

  /**
   * @param maxBatch the mirror's maximum batch duration
   * @param turn the worker's connection turn ({@code PullTuning.connectionTurn})
   * @param timeout the activity's start-to-close timeout; null or zero when unknown (then only the
   *     maximum duration bounds the run)
   */
  TurnAfterWaiting(Duration maxBatch, Duration turn, Duration timeout) {
    this.maxBatch = Objects.requireNonNull(maxBatch, "maxBatch");
    this.turn = Objects.requireNonNull(turn, "turn");
    this.timeout = timeout == null || timeout.isZero() || timeout.isNegative() ? maxBatch
        : timeout.minus(FINAL_COMMIT_RESERVE);
  }

  /** The batch's time limit after waiting {@code waited}; empty when the wait was too short to count. */
  Optional<Duration> limit(Duration waited) {
    if (waited.compareTo(AT_LEAST) < 0) {
      return Optional.empty();
    }
    Duration rest = maxBatch.minus(waited);
    Duration fairTurn = min(min(turn, maxBatch), timeout.minus(waited));
    Duration limit = rest.compareTo(fairTurn) >= 0 ? rest : fairTurn;
    return Optional.of(limit.compareTo(AT_LEAST) < 0 ? AT_LEAST : limit);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
