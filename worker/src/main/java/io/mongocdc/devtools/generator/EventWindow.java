package io.mongocdc.devtools.generator;

import io.mongocdc.source.ChangeStreamHistoryLostException;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import org.bson.RawBsonDocument;

/**
 * The generator's "oplog window": the last {@code capacity} events, in a ring, by their index
 * in the stream. Opening at a position that fell out of it fails as history lost (error 286),
 * as a server's change stream does.
 *
 * <p>Tokens and cluster times are in stream order, so a position is found by binary search;
 * tokens are read from the events only then (the events are made faster than tokens parse).
 * Not thread-safe.
 */
final class EventWindow {

  static final int HISTORY_LOST = 286;

  private final int capacity;
  private RawBsonDocument[] events;
  private long[] clusterTimes;
  private long start;
  private long end;
  private RawBsonDocument lastDropped;
  private long lastDroppedClusterTime;

  EventWindow(int capacity) {
    this.capacity = capacity;
    this.events = new RawBsonDocument[1024];
    this.clusterTimes = new long[events.length];
  }

  /** Appends the next event of the stream, dropping the oldest once the window is full. */
  void add(RawBsonDocument event, long clusterTime) {
    if (end - start == capacity) {
      lastDropped = events[slot(start)];
      lastDroppedClusterTime = clusterTimes[slot(start)];
      events[slot(start)] = null;
      start++;
    } else if (end - start == events.length) {
      grow();
    }
    events[slot(end)] = event;
    clusterTimes[slot(end)] = clusterTime;
    end++;
  }

  /** The stream index the next event will have. */
  long end() {
    return end;
  }

  /**
   * The event at stream index {@code index}.
   *
   * @throws ChangeStreamHistoryLostException if it was dropped
   */
  RawBsonDocument get(long index) {
    if (index < start) {
      throw new ChangeStreamHistoryLostException("the generator no longer holds event " + index
          + " (it keeps the last " + capacity + ")", HISTORY_LOST, null);
    }
    return events[slot(index)];
  }

  /**
   * The stream index of the first event after (for an operation time: at) {@code position};
   * {@link #end()} if there is none yet.
   *
   * @throws ChangeStreamHistoryLostException if events after the position were dropped
   */
  long firstAfter(StreamPosition position) {
    if (lastDropped != null && follows(lastDropped, lastDroppedClusterTime, position)) {
      throw new ChangeStreamHistoryLostException("the generator no longer holds the events after " + position
          + " (it keeps the last " + capacity + ")", HISTORY_LOST, null);
    }
    long low = start;
    long high = end;
    while (low < high) {
      long middle = (low + high) >>> 1;
      if (follows(events[slot(middle)], clusterTimes[slot(middle)], position)) {
        high = middle;
      } else {
        low = middle + 1;
      }
    }
    return low;
  }

  /**
   * The cluster time of the oldest event held once the window has dropped one, or 0 while it holds
   * every event made.
   */
  long oldestClusterTimeAfterDrops() {
    return lastDropped == null ? 0 : clusterTimes[slot(start)];
  }

  /** The cluster time of the last event added; only after one was. */
  long lastClusterTime() {
    return clusterTimes[slot(end - 1)];
  }

  /** Whether the last event added comes after (for an operation time: at or after) the position; only after one was. */
  boolean lastFollows(StreamPosition position) {
    return follows(events[slot(end - 1)], clusterTimes[slot(end - 1)], position);
  }

  /** The token of the last event added, or null before the first. */
  ResumeToken lastToken() {
    RawBsonDocument last = end > start ? events[slot(end - 1)] : lastDropped;
    return last == null ? null : ResumeToken.ofEvent(last);
  }

  private static boolean follows(RawBsonDocument event, long clusterTime, StreamPosition position) {
    return position instanceof StreamPosition.AfterToken after
        ? ResumeToken.ofEvent(event).isAfter(after.token())
        : Long.compareUnsigned(clusterTime, position.clusterTime().getValue()) >= 0;
  }

  // The ring's length is a power of two, so a slot is the index's low bits.
  private int slot(long index) {
    return (int) index & events.length - 1;
  }

  private void grow() {
    int length = 2 * events.length;
    RawBsonDocument[] grown = new RawBsonDocument[length];
    long[] grownTimes = new long[length];
    for (long i = start; i < end; i++) {
      grown[(int) i & length - 1] = events[slot(i)];
      grownTimes[(int) i & length - 1] = clusterTimes[slot(i)];
    }
    events = grown;
    clusterTimes = grownTimes;
  }
}
