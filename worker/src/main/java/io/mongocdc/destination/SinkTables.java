package io.mongocdc.destination;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjection;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.Namespace;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The tables one sink writes, each with its {@link TableBatch}: those set up for the mirror, and
 * those of collections first met in a batch, created then. A table name always stands for one
 * collection.
 */
final class SinkTables {

  private final SinkSession session;
  private final Predicate<Namespace> keepsHistory;
  private final ColumnProjections projections;
  private final Map<String, TableBatch> byName = new HashMap<>();

  /**
   * @param setUp the tables set up for the mirror ({@link PostgresDestination#setUp})
   * @throws TableNameCollisionException if two of them share a name
   */
  SinkTables(SinkSession session, Predicate<Namespace> keepsHistory, ColumnProjections projections,
      Collection<DestinationTable> setUp) {
    this.session = session;
    this.keepsHistory = keepsHistory;
    this.projections = projections;
    String schema = session.options().schema();
    for (DestinationTable table : setUp) {
      if (!table.schema().equals(schema)) {
        throw new IllegalArgumentException("table " + table.qualifiedName() + " is not in the sink's schema " + schema);
      }
      TableBatch existing = byName.get(table.name());
      if (existing != null && !existing.table().source().equals(table.source())) {
        throw new TableNameCollisionException(existing.table().source(), table.source(), table.name());
      }
      add(table);
    }
  }

  /**
   * The table of {@code record}, created if the sink has not met it.
   *
   * @throws TableNameCollisionException if the table is another collection's
   */
  TableBatch of(ChangeRecord record) throws SQLException {
    TableBatch table = byName.get(record.table());
    if (table != null) {
      if (!table.table().source().equals(record.source())) {
        throw new TableNameCollisionException(table.table().source(), record.source(), record.table());
      }
      return table;
    }
    // A collection that was not set up (e.g. created after the mirror started). Its table is
    // created and committed on a connection of its own, under an advisory lock, so that the
    // apply lanes of a batch (or a stale attempt) meeting it at the same time do not race on
    // the DDL; rows written later roll back without it. It is claimed for the mirror first, so
    // a table another mirror owns is neither created nor written.
    DestinationTable created = new DestinationTable(record.source(), session.options().schema(), record.table());
    session.claims().claim(created);
    session.ddl(ddl -> PostgresDestination.createTable(ddl, created));
    return add(created);
  }

  private TableBatch add(DestinationTable table) {
    DocumentProjector projector = projections.of(table.source());
    List<ColumnProjection> columns = projector == null ? List.of() : projector.columns();
    SinkStatements sql = new SinkStatements(table, byName.size(), columns, session.options().deleteMode(),
        keepsHistory.test(table.source()));
    TableBatch batch = new TableBatch(sql, columns, session);
    byName.put(table.name(), batch);
    return batch;
  }
}
