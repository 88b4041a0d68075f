package io.mongocdc.workflows.model;

/**
 * The input of the CommitCheckpoint activity: a batch's checkpoint and its figures.
 *
 * @param mirror the mirror's name
 * @param batchId the batch committed
 * @param checkpoint the checkpoint the batch delivered
 * @param figures the batch's figures, for the batch history
 */
public record CommitCheckpointRequest(String mirror, long batchId, Checkpoint checkpoint, BatchFigures figures) {}
