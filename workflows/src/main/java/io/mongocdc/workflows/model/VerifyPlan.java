package io.mongocdc.workflows.model;

import java.util.List;

/**
 * A verify run as the workflow needs it: range numbers only. The ranges' {@code _id} bounds stay
 * in the catalog ({@code verify_ranges}), so no document id enters workflow history.
 *
 * @param runId the run's row in {@code verify_runs}
 * @param rangesTotal ranges planned over all collections
 * @param pendingRanges range numbers not judged yet, ascending
 * @param skippedCollections collections not verified (copied with a snapshot filter, so the
 *     source holds documents the destination never had)
 */
public record VerifyPlan(long runId, int rangesTotal, List<Integer> pendingRanges, List<String> skippedCollections) {

  public VerifyPlan {
    pendingRanges = pendingRanges == null ? List.of() : List.copyOf(pendingRanges);
    skippedCollections = skippedCollections == null ? List.of() : List.copyOf(skippedCollections);
  }
}
