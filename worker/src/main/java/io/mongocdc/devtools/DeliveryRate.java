package io.mongocdc.devtools;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The records per second dev's streaming line shows, from the catalog's delivered total. That
 * total moves only when a batch ends, in steps of a whole batch: a rate over the last poll alone
 * reads 0 between batch ends and a spike at each. This one spans the last few batch ends: the
 * records they delivered over the time between the first and the last, so it holds steady between
 * them; once the wait for the next one outlasts the usual gap, the time counts on, so a mirror that
 * stopped delivering drifts to 0 instead of showing its old pace.
 */
final class DeliveryRate {

  /** Batch ends the rate spans: enough to smooth batches of uneven size, few enough to follow a change of pace. */
  static final int BATCH_ENDS = 4;

  private record Point(long nanos, long records) {}

  /** The first sample: where the rate starts from until two batch ends span one. */
  private Point baseline;
  /** The samples at which the total moved, the last {@link #BATCH_ENDS}. */
  private final Deque<Point> batchEnds = new ArrayDeque<>();

  /** Records the delivered total at {@code nanos} (a monotonic clock) and returns the rate then. */
  double sample(long nanos, long records) {
    Point now = new Point(nanos, records);
    if (baseline == null) {
      baseline = now;
      return 0;
    }
    Point previous = batchEnds.isEmpty() ? baseline : batchEnds.peekLast();
    if (records != previous.records()) {
      batchEnds.addLast(now);
      if (batchEnds.size() > BATCH_ENDS) {
        batchEnds.removeFirst();
      }
    }
    if (batchEnds.isEmpty()) {
      return 0;
    }
    // From the first batch end on, once there is a second: the time before the first (set-up, the
    // snapshot) delivered nothing the rate should average in.
    Point first = batchEnds.size() >= 2 ? batchEnds.peekFirst() : baseline;
    Point last = batchEnds.peekLast();
    int gaps = batchEnds.size() >= 2 ? batchEnds.size() - 1 : 1;
    double spanned = last.nanos() - first.nanos();
    // Between batch ends the span stands; past the usual gap between them the wait counts too.
    double over = Math.max(spanned, nanos - first.nanos() - spanned / gaps);
    return over <= 0 ? 0 : Math.max(0, last.records() - first.records()) * 1e9 / over;
  }
}
