package io.mongocdc.ports;

import java.util.List;
import java.util.Optional;

/**
 * The catalog's record of verify runs ({@code verify_runs}, {@code verify_ranges}): each run's
 * ranges and what judging each found. It is what lets a run resume without reading a judged
 * range again.
 */
public interface VerifyCatalog {

  /** A catalog that keeps no verify runs: verify then refuses to start. */
  VerifyCatalog NONE = new VerifyCatalog() {
    @Override
    public Optional<StoredRun> run(String workflowRunId) {
      throw unavailable();
    }

    @Override
    public StoredRun storeRun(String mirror, String workflowRunId, boolean repair, List<PlannedRange> ranges,
        List<String> skippedCollections) {
      throw unavailable();
    }

    @Override
    public VerifiedRange range(long runId, int range) {
      throw unavailable();
    }

    @Override
    public void rangeStarted(long runId, int range) {
      throw unavailable();
    }

    @Override
    public void rangeDone(long runId, int range, Verdict verdict) {
      throw unavailable();
    }

    @Override
    public List<VerifiedRange> ranges(long runId) {
      throw unavailable();
    }

    @Override
    public FinishedRun finish(long runId) {
      throw unavailable();
    }

    private InvalidMirrorConfigurationException unavailable() {
      return new InvalidMirrorConfigurationException("this worker's catalog does not keep verify runs");
    }
  };

  /** The run a workflow run stored, if it did. */
  Optional<StoredRun> run(String workflowRunId);

  /** Stores a new run with its ranges (numbered in list order), once per workflow run. */
  StoredRun storeRun(String mirror, String workflowRunId, boolean repair, List<PlannedRange> ranges,
      List<String> skippedCollections);

  /** A range of a run. @throws IllegalArgumentException if there is no such range */
  VerifiedRange range(long runId, int range);

  /** Counts an attempt at judging the range. */
  void rangeStarted(long runId, int range);

  /** Records the range judged; a range already done keeps its first verdict. */
  void rangeDone(long runId, int range, Verdict verdict);

  /** Every range of the run, in order. */
  List<VerifiedRange> ranges(long runId);

  /** Marks the run done (a run done already keeps its end). */
  FinishedRun finish(long runId);

  /** A run done: seconds from its start to its end, and the collections it skipped. */
  record FinishedRun(double seconds, List<String> skippedCollections) {}

  /**
   * A stored run.
   *
   * @param pendingRanges range numbers not judged yet
   */
  record StoredRun(long runId, int rangesTotal, List<Integer> pendingRanges, List<String> skippedCollections) {}

  /** A range to judge: a collection and an {@code IdRange} as JSON. */
  record PlannedRange(String collection, String idRange) {}

  /**
   * What judging a range found.
   *
   * @param sampleIds the first few differing keys, as key text
   */
  record Verdict(long sourceDocuments, long sourceHash, long destinationDocuments, long destinationHash, long missing,
      long extra, long different, long unsettled, long repaired, List<String> sampleIds) {

    public long mismatches() {
      return differing() + unsettled;
    }

    /** Confirmed to differ: missing, extra and different, not the unsettled. */
    public long differing() {
      return missing + extra + different;
    }
  }

  /** A range as stored: its verdict once done, else null. */
  record VerifiedRange(int range, String collection, String idRange, Verdict verdict) {

    public boolean done() {
      return verdict != null;
    }
  }
}
