package io.mongocdc.ports;

import io.mongocdc.source.ChangeStreamCursor;
import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.StreamPosition;
import java.time.Instant;
import org.bson.BsonTimestamp;

/**
 * Whether a source's change history holds a new mirror's chosen start point, and the refusal that
 * says why not: the operator learns the oldest point they may choose before anything is created,
 * not from the first batch's failure.
 */
public final class StartPointCheck {

  private StartPointCheck() {}

  /**
   * @param start the chosen start point
   * @param now the source's time now: a later start has not happened yet
   * @param oldestHeld the cluster time of the oldest event the history holds; null when the source
   *     cannot tell (then only {@code probe} judges) or holds everything since it began
   * @param probe opens the stream at {@code start} to let the source itself refuse it; null to skip
   * @throws InvalidMirrorConfigurationException if the history does not hold the start point
   */
  public static void require(StreamPosition start, StreamPosition now, BsonTimestamp oldestHeld,
      ChangeStreamOpener probe) {
    BsonTimestamp time;
    try {
      time = start.clusterTime();
    } catch (IllegalStateException e) {
      throw new InvalidMirrorConfigurationException("the start point " + start + " is not a change stream resume"
          + " token of MongoDB 4.0.7 or later (it does not start with a cluster time): " + e.getMessage());
    }
    BsonTimestamp nowTime = now.clusterTimeOrZero();
    // By the second: a clock read "now" may not count the increments of the second it is in.
    if (Integer.compareUnsigned(time.getTime(), nowTime.getTime()) > 0) {
      throw new InvalidMirrorConfigurationException("the start point " + describe(time)
          + " is later than the source's time now, " + describe(nowTime) + "; a mirror cannot start in the future");
    }
    if (oldestHeld != null && Long.compareUnsigned(time.getValue(), oldestHeld.getValue()) < 0) {
      throw new InvalidMirrorConfigurationException(notHeld(start, time, oldestHeld, null));
    }
    if (probe != null) {
      try (ChangeStreamCursor cursor = probe.open(start)) {
        // The server checks the start when the stream opens, or with the first batch after it.
        cursor.tryNext();
      } catch (ChangeStreamHistoryLostException e) {
        throw new InvalidMirrorConfigurationException(notHeld(start, time, oldestHeld, e.getMessage()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while checking the start point", e);
      }
    }
  }

  private static String notHeld(StreamPosition start, BsonTimestamp time, BsonTimestamp oldestHeld, String source) {
    String point = start instanceof StreamPosition.AfterToken ? "the resume token's event at " + describe(time)
        : describe(time);
    return "the source's history no longer holds the start point " + point
        + (oldestHeld == null ? " (the oldest point it holds could not be read)"
            : "; the oldest point it holds is " + describe(oldestHeld))
        + (source == null ? "" : " (the source says: " + source + ")")
        + ". Choose a later start point, or create the mirror without one and with --snapshot to copy"
        + " the documents as they are now";
  }

  /** A cluster time as an operator reads it and as {@code --start-at} takes it. */
  public static String describe(BsonTimestamp time) {
    long seconds = time.getTime() & 0xFFFFFFFFL;
    return Instant.ofEpochSecond(seconds) + " (cluster time " + seconds + "." + (time.getInc() & 0xFFFFFFFFL) + ")";
  }
}
