package io.mongocdc.workflows.model;

/**
 * A verify run's progress, as the {@code progress} query answers it.
 *
 * @param runId the run's row in {@code verify_runs}; 0 until it is planned
 * @param rangesTotal ranges planned; 0 until planned
 * @param rangesDone ranges judged
 * @param documentsCompared source documents compared so far
 * @param mismatches {@code _id}s confirmed to differ so far
 * @param repaired of those, how many were repaired
 * @param unsettled {@code _id}s not settled in time so far, apart from the mismatches
 */
public record VerifyProgress(long runId, int rangesTotal, int rangesDone, long documentsCompared, long mismatches,
    long repaired, long unsettled) {}
