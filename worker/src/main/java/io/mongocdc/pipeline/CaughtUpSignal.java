package io.mongocdc.pipeline;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Whether the reader's last "caught up" marker still waits for the sender to act on it. While it
 * does, the reader keeps filling its chunk instead of cutting one per event: a commit covers
 * what arrived while the previous one ran, so commits follow the destination's pace.
 */
final class CaughtUpSignal {

  private final AtomicBoolean pending = new AtomicBoolean();

  /** The reader: true if no marker is pending, which it then sends. */
  boolean raise() {
    return pending.compareAndSet(false, true);
  }

  /** The reader sends a marker whatever is pending (the stream went quiet). */
  void force() {
    pending.set(true);
  }

  /** The sender has committed what the marker covered. */
  void clear() {
    pending.set(false);
  }
}
