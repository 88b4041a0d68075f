package io.mongocdc.workflows.model;

import java.util.Map;

/**
 * One partition copied and recorded done in the catalog.
 *
 * @param collection the collection
 * @param partition the partition's number
 * @param documents documents copied
 * @param bytes raw BSON bytes of those documents
 * @param columnDrift typed column values that did not convert in those documents, by table and
 *     column; empty without typed columns (and in histories of workers before them)
 */
public record SnapshotPartitionCopied(String collection, int partition, long documents, long bytes,
    Map<String, Map<String, Long>> columnDrift) {

  public SnapshotPartitionCopied {
    columnDrift = ColumnDrift.copyOf(columnDrift);
  }
}
