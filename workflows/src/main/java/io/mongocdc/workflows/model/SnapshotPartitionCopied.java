package io.mongocdc.workflows.model;

/**
 * One partition copied and recorded done in the catalog.
 *
 * @param collection the collection
 * @param partition the partition's number
 * @param documents documents copied
 * @param bytes raw BSON bytes of those documents
 */
public record SnapshotPartitionCopied(String collection, int partition, long documents, long bytes) {}
