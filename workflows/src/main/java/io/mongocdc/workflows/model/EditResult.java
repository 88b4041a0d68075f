package io.mongocdc.workflows.model;

/**
 * What the {@code edit} update answers once it accepted an edit.
 *
 * @param nextBatchSettings the settings the next batch will use
 * @param appliesFromBatch the first batch that uses them
 */
public record EditResult(MirrorSettings nextBatchSettings, long appliesFromBatch) {}
