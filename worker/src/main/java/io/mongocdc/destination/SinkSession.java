package io.mongocdc.destination;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * What a sink's per-table batches share: the sink's connection (its open transaction) and open
 * COPY, its options, and the way to create or alter a table met on the way.
 *
 * @param dataSource where DDL gets a connection of its own
 * @param claims records a table as the mirror's before the sink creates it
 * @param newKeysStraightIn copy each key's first record of a transaction straight into its table,
 *     as into an empty table (see {@link PostgresSinkBuilder#newKeysStraightIn})
 */
record SinkSession(
    DataSource dataSource, Connection connection, CopyStream copy, PostgresSinkOptions options, TableClaim claims,
    boolean newKeysStraightIn) {

  /** Runs DDL on a connection of its own, committed at once, under the DDL advisory lock. */
  void ddl(DestinationDdl.Step step) throws SQLException {
    DestinationDdl.run(dataSource, options.schema(), step);
  }
}
