package io.mongocdc.pipeline;

/**
 * Told, on the sender's thread right after each commit, which records that commit made visible:
 * their source commit times ({@code wallTime}, or cluster time where absent). Each record's
 * freshness is the commit's instant minus its source commit time; weighing every record, rather
 * than one figure per commit, is what makes the figures match what a reader of the destination
 * sees over time. Records a batch replays over a snapshot copy that had made them visible
 * ({@link CopyReplays}) are left out: their lag was the copy's, not the stream's. Must be quick;
 * it runs between commits.
 */
@FunctionalInterface
public interface FreshnessListener {

  /**
   * @param committedAtMillis the commit's instant (epoch milliseconds)
   * @param sourceCommitMillis the records' source commit times (when a commit makes more than
   *     a quarter of a million records visible, an evenly spread sample of them); only the first
   *     {@code count} are meaningful, and the array is reused after the call returns
   * @param count how many commit times there are
   */
  void onVisible(long committedAtMillis, long[] sourceCommitMillis, int count);

  static FreshnessListener none() {
    return (committedAtMillis, sourceCommitMillis, count) -> {};
  }

  /** Tells this listener, then {@code next}. */
  default FreshnessListener andThen(FreshnessListener next) {
    return (committedAtMillis, sourceCommitMillis, count) -> {
      onVisible(committedAtMillis, sourceCommitMillis, count);
      next.onVisible(committedAtMillis, sourceCommitMillis, count);
    };
  }
}
