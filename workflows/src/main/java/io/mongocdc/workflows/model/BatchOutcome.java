package io.mongocdc.workflows.model;

/**
 * What the PullRecords activity returns.
 *
 * @param batchId the batch's number within the mirror (1, 2, ...)
 * @param checkpoint the last delivered position; the start position if nothing moved it
 * @param figures the batch's counts and timings
 * @param stoppedAt the control event (drop, rename, ...) the batch stopped before under the
 *     PAUSE policy, described in one line; null otherwise
 */
public record BatchOutcome(long batchId, Checkpoint checkpoint, BatchFigures figures, String stoppedAt, OplogSpan oplog) {
}
