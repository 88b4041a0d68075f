package io.mongocdc.pipeline;

import java.util.Arrays;

/**
 * The source commit times of the records written since the last commit, for their freshness once
 * it makes them visible. Holds every record's until more than {@code capacity} wait for one
 * commit; then every other time kept is dropped and only every second record's is kept from then
 * on (and so on), so memory stays bounded and what is kept stays spread evenly over the records,
 * each time standing for {@link #weight()} records. Used on the sender's thread only.
 */
final class PendingCommitTimes {

  /** 2 MiB of times at most. */
  static final int DEFAULT_CAPACITY = 1 << 18;

  private final int capacity;
  private long[] millis;
  private int kept;
  private long records;
  private int stride = 1;

  PendingCommitTimes() {
    this(DEFAULT_CAPACITY);
  }

  /** @param capacity times kept at most, a power of two */
  PendingCommitTimes(int capacity) {
    if (capacity < 2 || Integer.bitCount(capacity) != 1) {
      throw new IllegalArgumentException("capacity must be a power of two of at least 2, got " + capacity);
    }
    this.capacity = capacity;
    this.millis = new long[Math.min(1024, capacity)];
  }

  void add(long sourceCommitMillis) {
    if (records++ % stride != 0) {
      return;
    }
    if (kept == millis.length) {
      if (kept == capacity) {
        for (int i = 0; i < kept / 2; i++) {
          millis[i] = millis[2 * i];
        }
        kept /= 2;
        stride *= 2;
        // This record's index is a multiple of the old stride times an even count: it is kept.
      } else {
        millis = Arrays.copyOf(millis, Math.min(capacity, kept * 2));
      }
    }
    millis[kept++] = sourceCommitMillis;
  }

  /** Records added since the last {@link #clear()}. */
  long records() {
    return records;
  }

  /** The times kept; only the first {@link #kept()} are meaningful. */
  long[] millis() {
    return millis;
  }

  int kept() {
    return kept;
  }

  /** How many records each kept time stands for. */
  int weight() {
    return stride;
  }

  void clear() {
    kept = 0;
    records = 0;
    stride = 1;
  }
}
