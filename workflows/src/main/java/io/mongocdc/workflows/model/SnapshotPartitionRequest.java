package io.mongocdc.workflows.model;

/**
 * Asks a worker to copy one planned partition of a collection.
 *
 * @param mirror the mirror (its settings carry the collection's snapshot filter)
 * @param collection the collection
 * @param partition the partition's number in the stored plan
 * @param position the checkpoint the snapshot started at; copied rows carry it as their position
 */
public record SnapshotPartitionRequest(MirrorConfig mirror, String collection, int partition, Checkpoint position) {}
