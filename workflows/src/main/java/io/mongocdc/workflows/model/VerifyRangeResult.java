package io.mongocdc.workflows.model;

/**
 * What judging one range found.
 *
 * @param range the range's number
 * @param documentsCompared source documents read and compared
 * @param mismatches {@code _id}s confirmed to differ: missing, extra, different (results of workers
 *     before {@code unsettled} existed count the unsettled here too)
 * @param repaired of those, how many were re-copied or deleted
 * @param unsettled {@code _id}s that differed but could not be judged in time, apart from the
 *     mismatches: not found to differ; 0 in results of workers before it existed
 */
public record VerifyRangeResult(int range, long documentsCompared, long mismatches, long repaired, long unsettled) {}
