package io.mongocdc.pipeline;

/**
 * Told, on the sender's thread right after each commit, how fresh every chunk that commit made
 * visible is: the commit's instant minus the source commit time ({@code wallTime}, or cluster
 * time where absent) of the chunk's newest record. Must be quick; it runs between commits.
 */
@FunctionalInterface
public interface FreshnessListener {

  void onVisible(long freshnessMillis);

  static FreshnessListener none() {
    return freshnessMillis -> {};
  }
}
