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
 * @param oplog the source's oplog span once the partition was copied: while a copy keeps batches
 *     waiting, status learns the headroom of the stream's start point from it; null when the
 *     source does not report it (and in histories of workers before it)
 */
public record SnapshotPartitionCopied(String collection, int partition, long documents, long bytes,
    Map<String, Map<String, Long>> columnDrift, OplogSpan oplog) {

  public SnapshotPartitionCopied {
    columnDrift = ColumnDrift.copyOf(columnDrift);
  }
}
