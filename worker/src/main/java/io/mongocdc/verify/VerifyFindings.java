package io.mongocdc.verify;

import io.mongocdc.workflows.model.VerifyProgress;
import io.mongocdc.workflows.model.VerifyResult;

/**
 * How {@code mirror verify} and {@code dev --verify} word what a run found. An unsettled
 * {@code _id} was not found to differ: it changed while verify read it, or the mirror had not
 * caught up with it in time, so it is named apart from those confirmed to differ and never counted
 * among them.
 */
public final class VerifyFindings {

  private static final String UNSETTLED_MEANS =
      "changed while verify read them, or the mirror had not caught up with them: verify again later";

  private VerifyFindings() {}

  /** The figures of a run in progress: {@code 3 differ}, then {@code , 2 unsettled} if any. */
  public static String soFar(VerifyProgress progress) {
    return String.format("%,d differ", progress.mismatches())
        + (progress.unsettled() > 0 ? String.format(", %,d unsettled", progress.unsettled()) : "");
  }

  /** A finished run's verdict, without repairs: what differs, and apart from it what is unsettled. */
  public static String of(VerifyResult result) {
    if (result.mismatches() == 0) {
      return "the destination matches the source";
    }
    String differing = result.differing() == 0 ? "no _id found to differ"
        : String.format("%,d _ids differ", result.differing());
    return result.unsettled() == 0 ? differing
        : String.format("%s; %,d _ids unsettled (%s)", differing, result.unsettled(), UNSETTLED_MEANS);
  }
}
