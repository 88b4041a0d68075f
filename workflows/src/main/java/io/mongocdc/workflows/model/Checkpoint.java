package io.mongocdc.workflows.model;

/**
 * Where a mirror's change stream resumes: after a resume token, or at an operation time.
 *
 * <p>The cluster time is carried in both forms (for a token it is the time the token starts
 * with, read by the worker) so status can say how old the checkpoint is without parsing tokens
 * in workflow code.
 *
 * @param resumeToken the {@code _id._data} hex of the last delivered event or post-batch token;
 *     null when the checkpoint is an operation time
 * @param clusterTimeSeconds seconds of the cluster time
 * @param clusterTimeIncrement increment of the cluster time
 */
public record Checkpoint(String resumeToken, long clusterTimeSeconds, int clusterTimeIncrement) {

  public static Checkpoint afterToken(String resumeToken, long clusterTimeSeconds, int clusterTimeIncrement) {
    if (resumeToken == null || resumeToken.isEmpty()) {
      throw new IllegalArgumentException("a token checkpoint needs a resume token");
    }
    return new Checkpoint(resumeToken, clusterTimeSeconds, clusterTimeIncrement);
  }

  public static Checkpoint atOperationTime(long clusterTimeSeconds, int clusterTimeIncrement) {
    return new Checkpoint(null, clusterTimeSeconds, clusterTimeIncrement);
  }

  /** One line for status and logs. */
  public String describe() {
    String time = clusterTimeSeconds + "." + clusterTimeIncrement;
    return resumeToken == null ? "at operation time " + time : "after token " + resumeToken + " (cluster time " + time + ")";
  }
}
