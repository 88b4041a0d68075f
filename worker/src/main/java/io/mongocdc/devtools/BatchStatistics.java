package io.mongocdc.devtools;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;

/**
 * A mirror's batch figures, read from the catalog's batch history with plain SQL.
 *
 * @param phaseStart the start of the first batch that delivered records, null if none did
 * @param phaseEnd the end of the last batch that delivered records, null if none did
 */
record BatchStatistics(long batches, long lastBatchId, long records, Instant phaseStart, Instant phaseEnd,
    long p50Millis, long p99Millis) {

  static BatchStatistics of(Connection catalog, String mirror) throws SQLException {
    String sql = """
        select count(*), coalesce(max(batch_id), 0), coalesce(sum(records), 0),
               min(started_at) filter (where records > 0), max(ended_at) filter (where records > 0),
               coalesce(percentile_cont(0.5) within group (order by extract(epoch from ended_at - started_at)), 0),
               coalesce(percentile_cont(0.99) within group (order by extract(epoch from ended_at - started_at)), 0)
        from mongo_cdc.batches where mirror_name = ?""";
    try (PreparedStatement statement = catalog.prepareStatement(sql)) {
      statement.setString(1, mirror);
      try (ResultSet row = statement.executeQuery()) {
        row.next();
        return new BatchStatistics(row.getLong(1), row.getLong(2), row.getLong(3), instant(row, 4), instant(row, 5),
            Math.round(row.getDouble(6) * 1000), Math.round(row.getDouble(7) * 1000));
      }
    }
  }

  /** Seconds from the first batch that delivered records starting to the last one ending; 0 if none. */
  double phaseSeconds() {
    return phaseStart == null || phaseEnd == null ? 0 : (phaseEnd.toEpochMilli() - phaseStart.toEpochMilli()) / 1000.0;
  }

  private static Instant instant(ResultSet row, int column) throws SQLException {
    Timestamp value = row.getTimestamp(column);
    return value == null ? null : value.toInstant();
  }
}
