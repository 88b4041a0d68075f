package io.mongocdc.pipeline;

/**
 * Receives a pull's progress every {@link PullSettings#progressInterval()}, from a thread of the
 * pull's own. Throwing from it (as a Temporal heartbeat does when the activity is cancelled)
 * fails the pull with that exception, promptly.
 */
@FunctionalInterface
public interface ProgressListener {

  void onProgress(PullProgress progress) throws Exception;

  static ProgressListener none() {
    return progress -> {};
  }
}
