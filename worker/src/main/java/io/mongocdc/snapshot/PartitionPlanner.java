package io.mongocdc.snapshot;

import java.util.List;
import org.bson.BsonValue;

/** STUB: replaced by the partition-planning work. */
public final class PartitionPlanner {

  private PartitionPlanner() {}

  public static int sampleSizeFor(long estimatedCount, int documentsPerPartition) {
    throw new UnsupportedOperationException("stub");
  }

  public static List<IdRange> plan(long estimatedCount, List<BsonValue> sampledIds, int documentsPerPartition) {
    throw new UnsupportedOperationException("stub");
  }
}
