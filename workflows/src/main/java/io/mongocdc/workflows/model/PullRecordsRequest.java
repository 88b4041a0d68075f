package io.mongocdc.workflows.model;

/**
 * The input of one PullRecords activity.
 *
 * @param mirror the mirror, with the settings for this batch
 * @param batchId the batch's number
 * @param start the committed checkpoint the batch reads from
 */
public record PullRecordsRequest(MirrorConfig mirror, long batchId, Checkpoint start) {}
