package io.mongocdc.workflows.model;

import java.util.List;

/**
 * What a verify run found, per collection and in total. No document id: those are in the
 * catalog's {@code verify_ranges}.
 *
 * @param runId the run's row in {@code verify_runs}
 * @param repair whether differing documents were repaired
 * @param collections one line per collection verified
 * @param skippedCollections collections not verified, see {@link VerifyPlan#skippedCollections}
 * @param seconds from planning to the last range judged
 */
public record VerifyResult(long runId, boolean repair, List<Collection> collections, List<String> skippedCollections,
    double seconds) {

  public VerifyResult {
    collections = collections == null ? List.of() : List.copyOf(collections);
    skippedCollections = skippedCollections == null ? List.of() : List.copyOf(skippedCollections);
  }

  /**
   * One collection's figures.
   *
   * @param sourceDocuments documents read from the source
   * @param destinationDocuments live rows read from the destination
   * @param missing {@code _id}s the source has and the destination does not
   * @param extra {@code _id}s the destination has and the source does not
   * @param different {@code _id}s on both sides whose documents differ
   * @param unsettled {@code _id}s that differed but the mirror did not pass the source reads in
   *     time to judge (changing as they were read); verify them again later
   * @param repaired of the differing ones, how many were re-copied or deleted
   */
  public record Collection(String collection, int ranges, long sourceDocuments, long destinationDocuments,
      long missing, long extra, long different, long unsettled, long repaired) {

    /** {@code _id}s not found equal: those confirmed to differ and the unsettled. */
    public long mismatches() {
      return differing() + unsettled;
    }

    /** {@code _id}s confirmed to differ: missing, extra and different, not the unsettled. */
    public long differing() {
      return missing + extra + different;
    }
  }

  public int ranges() {
    return collections.stream().mapToInt(Collection::ranges).sum();
  }

  public long documentsCompared() {
    return collections.stream().mapToLong(Collection::sourceDocuments).sum();
  }

  /** {@code _id}s not found equal: those confirmed to differ and the unsettled. */
  public long mismatches() {
    return collections.stream().mapToLong(Collection::mismatches).sum();
  }

  /** {@code _id}s confirmed to differ. */
  public long differing() {
    return collections.stream().mapToLong(Collection::differing).sum();
  }

  /** {@code _id}s that could not be judged in time: not found to differ, to verify again. */
  public long unsettled() {
    return collections.stream().mapToLong(Collection::unsettled).sum();
  }

  public long repaired() {
    return collections.stream().mapToLong(Collection::repaired).sum();
  }
}
