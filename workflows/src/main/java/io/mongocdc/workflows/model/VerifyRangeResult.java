package io.mongocdc.workflows.model;

/**
 * What judging one range found.
 *
 * @param range the range's number
 * @param documentsCompared source documents read and compared
 * @param mismatches {@code _id}s confirmed to differ (missing, extra, different) or not settled
 * @param repaired of those, how many were re-copied or deleted
 */
public record VerifyRangeResult(int range, long documentsCompared, long mismatches, long repaired) {}
