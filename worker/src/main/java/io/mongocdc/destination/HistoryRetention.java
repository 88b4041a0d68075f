package io.mongocdc.destination;

import static io.mongocdc.destination.DestinationColumn.COMMIT_TIME;
import static io.mongocdc.destination.DestinationColumn.ID;
import static io.mongocdc.destination.DestinationColumn.POSITION;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Removes expired rows of a history table ({@code historyRetentionDays}), in bounded statements.
 *
 * <p>A row is expired when its commit time is more than the retention before now, except the row
 * the state table's row points at ({@code _id} and {@code _position} equal): that one stays, so
 * each latest-state row keeps its history row and the state of a document at any time since its
 * last change can still be read from the history alone.
 */
public final class HistoryRetention {

  private HistoryRetention() {}

  /**
   * Removes at most {@code limit} expired rows of {@code state}'s history table, in autocommit.
   *
   * @return the rows removed; 0 if the history table does not exist
   */
  public static long prune(Connection connection, DestinationTable state, int retentionDays, int limit)
      throws SQLException {
    DestinationTable history = PostgresDestination.historyOf(state);
    try (PreparedStatement exists = connection.prepareStatement("select to_regclass(?) is not null")) {
      exists.setString(1, history.qualifiedName());
      try (ResultSet rs = exists.executeQuery()) {
        rs.next();
        if (!rs.getBoolean(1)) {
          return 0;
        }
      }
    }
    String h = history.qualifiedName();
    // ctid: the rows the bounded select found, whatever their key; the commit-time index finds them.
    try (PreparedStatement ps = connection.prepareStatement("delete from " + h + " where ctid = any (array("
        + "select x.ctid from " + h + " x where x." + COMMIT_TIME.quoted() + " < now() - make_interval(days => ?)"
        + " and not exists (select 1 from " + state.qualifiedName() + " s where s." + ID.quoted() + " = x." + ID.quoted()
        + " and s." + POSITION.quoted() + " = x." + POSITION.quoted() + ") limit ?))")) {
      ps.setInt(1, retentionDays);
      ps.setInt(2, limit);
      return ps.executeUpdate();
    }
  }
}
