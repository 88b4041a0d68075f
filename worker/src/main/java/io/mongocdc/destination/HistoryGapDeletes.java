package io.mongocdc.destination;

import static io.mongocdc.destination.DestinationColumn.COMMIT_TIME;
import static io.mongocdc.destination.DestinationColumn.DELETED;
import static io.mongocdc.destination.DestinationColumn.ID;
import static io.mongocdc.destination.DestinationColumn.OPERATION;
import static io.mongocdc.destination.DestinationColumn.POSITION;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * Marks, in a collection's history, the deletes the history missed while it was off: a copy that
 * starts the history over (history turned on again) writes an {@code insert} for every current
 * document, but a document deleted in the gap is not current, so without these rows its last
 * history row (from before the gap) would show it alive for ever.
 *
 * <p>Two kinds: a tombstone (soft deletes) whose position has no history row gets a {@code delete}
 * at its own position and commit time, which is when the delete happened; a document the history
 * shows alive (its last row is not a delete) that the table no longer holds at all (hard deletes)
 * gets a {@code delete} at the copy's start, the first position known to be after it. Both are
 * {@code on conflict do nothing}, so running again (a retried call) adds nothing.
 */
final class HistoryGapDeletes {

  private final DestinationTable state;
  private final DestinationTable history;

  HistoryGapDeletes(DestinationTable state) {
    this.state = state;
    this.history = PostgresDestination.historyOf(state);
  }

  /** @return the delete rows appended, in the caller's transaction */
  long mark(Connection connection, String copyPosition, Instant copyCommitTime) throws SQLException {
    String columns = " (" + POSITION.quoted() + ", " + ID.quoted() + ", " + OPERATION.quoted() + ", "
        + COMMIT_TIME.quoted() + ")";
    String conflict = " on conflict (" + POSITION.quoted() + ", " + ID.quoted() + ") do nothing";
    long marked;
    try (PreparedStatement tombstones = connection.prepareStatement("insert into " + history.qualifiedName() + columns
        + " select s." + POSITION.quoted() + ", s." + ID.quoted() + ", 'delete', s." + COMMIT_TIME.quoted()
        + " from " + state.qualifiedName() + " s where s." + DELETED.quoted()
        + " and not exists (select 1 from " + history.qualifiedName() + " h where h." + POSITION.quoted()
        + " = s." + POSITION.quoted() + " and h." + ID.quoted() + " = s." + ID.quoted() + ")" + conflict)) {
      marked = tombstones.executeUpdate();
    }
    try (PreparedStatement removed = connection.prepareStatement("insert into " + history.qualifiedName() + columns
        + " select ?, last." + ID.quoted() + ", 'delete', ? from (select distinct on (" + ID.quoted() + ") "
        + ID.quoted() + ", " + OPERATION.quoted() + " from " + history.qualifiedName() + " order by "
        + ID.quoted() + ", " + POSITION.quoted() + " desc) last where last." + OPERATION.quoted() + " <> 'delete'"
        + " and not exists (select 1 from " + state.qualifiedName() + " s where s." + ID.quoted() + " = last."
        + ID.quoted() + ")" + conflict)) {
      removed.setString(1, copyPosition);
      removed.setObject(2, OffsetDateTime.ofInstant(copyCommitTime, ZoneOffset.UTC));
      marked += removed.executeUpdate();
    }
    return marked;
  }
}
