package io.mongocdc.destination;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Namespace;
import io.mongocdc.pipeline.RecordScreen;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * Finds, before they are written, the records a mirror's PostgreSQL tables cannot hold, so they
 * meet the mirror's {@code poisonEventPolicy} instead of failing every attempt of the batch:
 *
 * <ul>
 *   <li>a key longer than {@link #MAX_KEY_BYTES}: the {@code _id} primary key's b-tree holds
 *       about 2 700 bytes per entry (a third of a page), and a longer entry fails the whole
 *       transaction with SQLSTATE 54000. The limit is on the key text as it is, not compressed, so
 *       the same key is refused on every replay;
 *   <li>a record whose table already holds another collection (two collection names that map to
 *       one table, e.g. differing only beyond the 63-byte identifier limit): the first collection
 *       met keeps the table, in stream order, and the other's records are refused.
 * </ul>
 *
 * <p>One screen serves one batch attempt, on the sender thread.
 */
final class PostgresRecordScreen implements RecordScreen {

  /** Key text up to this many UTF-8 bytes always fits the primary key's index. */
  static final int MAX_KEY_BYTES = 2_600;

  private final DataSource dataSource;
  private final String schema;
  private final Map<String, Namespace> owners = new HashMap<>();

  /** @param planned the tables set up for the mirror's listed collections */
  PostgresRecordScreen(DataSource dataSource, String schema, Collection<DestinationTable> planned) {
    this.dataSource = dataSource;
    this.schema = schema;
    planned.forEach(table -> owners.put(table.name(), table.source()));
  }

  @Override
  public String refusal(ChangeRecord record) throws SQLException {
    String key = record.key();
    // UTF-8 takes at most 3 bytes per char: shorter keys need no count.
    if (key.length() * 3 > MAX_KEY_BYTES) {
      int bytes = key.getBytes(StandardCharsets.UTF_8).length;
      if (bytes > MAX_KEY_BYTES) {
        return "its _id is " + bytes + " bytes as key text; the destination's primary key holds at most "
            + MAX_KEY_BYTES;
      }
    }
    Namespace owner = owner(record);
    if (!owner.equals(record.source())) {
      return "its table " + TableNaming.quote(schema) + "." + TableNaming.quote(record.table())
          + " already holds collection " + owner.fullName();
    }
    return null;
  }

  /** The collection the record's table holds: from the plan, the table's comment, or this record. */
  private Namespace owner(ChangeRecord record) throws SQLException {
    Namespace known = owners.get(record.table());
    if (known != null) {
      return known;
    }
    Namespace existing;
    try (Connection connection = dataSource.getConnection()) {
      existing = PostgresDestination.mirroredNamespace(connection,
          new DestinationTable(record.source(), schema, record.table()));
    }
    Namespace owner = existing != null ? existing : record.source();
    owners.put(record.table(), owner);
    return owner;
  }
}
