package io.mongocdc.dev;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** A mirror's batch figures, read from the catalog's batch history with plain SQL. */
record BatchStatistics(long batches, long lastBatchId, long records, double seconds, long p50Millis, long p99Millis) {

  static BatchStatistics of(Connection catalog, String mirror) throws SQLException {
    String sql = """
        select count(*), coalesce(max(batch_id), 0), coalesce(sum(records), 0),
               coalesce(extract(epoch from max(ended_at) - min(started_at)), 0),
               coalesce(percentile_cont(0.5) within group (order by extract(epoch from ended_at - started_at)), 0),
               coalesce(percentile_cont(0.99) within group (order by extract(epoch from ended_at - started_at)), 0)
        from mongo_cdc.batches where mirror_name = ?""";
    try (PreparedStatement statement = catalog.prepareStatement(sql)) {
      statement.setString(1, mirror);
      try (ResultSet row = statement.executeQuery()) {
        row.next();
        return new BatchStatistics(row.getLong(1), row.getLong(2), row.getLong(3), row.getDouble(4),
            Math.round(row.getDouble(5) * 1000), Math.round(row.getDouble(6) * 1000));
      }
    }
  }
}
