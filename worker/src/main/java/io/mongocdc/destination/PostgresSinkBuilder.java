package io.mongocdc.destination;

import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.Namespace;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * How to open a {@link PostgresRecordSink} ({@link PostgresRecordSink#builder}): where, with which
 * options and tables, and what the mirror adds (ownership claims, change history, typed columns),
 * each off unless set.
 */
public final class PostgresSinkBuilder {

  private final DataSource dataSource;
  private final PostgresSinkOptions options;
  private final List<DestinationTable> tables;
  private TableClaim claims = TableClaim.NONE;
  private Predicate<Namespace> keepsHistory = ns -> false;
  private ColumnProjections projections = ColumnProjections.NONE;
  private Duration lockTimeout;
  private boolean newKeysStraightIn;

  PostgresSinkBuilder(DataSource dataSource, PostgresSinkOptions options, Collection<DestinationTable> tables) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.options = Objects.requireNonNull(options, "options");
    this.tables = List.copyOf(tables);
  }

  /** Records a table as the mirror's before the sink creates it on the way. Default: {@link TableClaim#NONE}. */
  public PostgresSinkBuilder claims(TableClaim value) {
    claims = Objects.requireNonNull(value, "claims");
    return this;
  }

  /**
   * Also appends every record of a collection that {@code value} accepts to that table's history
   * table ({@code <table>_history}, created on the way if missing). Default: no collection.
   */
  public PostgresSinkBuilder keepsHistory(Predicate<Namespace> value) {
    keepsHistory = Objects.requireNonNull(value, "keepsHistory");
    return this;
  }

  /**
   * Also writes the typed columns {@code value} gives each table (added to the table on the way if
   * missing), with their {@code _drift}, in the same rows as {@code doc}. Default: none.
   */
  public PostgresSinkBuilder projections(ColumnProjections value) {
    projections = Objects.requireNonNull(value, "projections");
    return this;
  }

  /**
   * Sets {@code lock_timeout} in each of the sink's transactions: a statement that waits longer
   * for a lock fails with SQLSTATE 55P03 and the transaction rolls back. For writers that yield to
   * change batches ({@link LockYieldingSink}); batch lanes keep the server's (none by default).
   * Default: the server's.
   */
  public PostgresSinkBuilder lockTimeout(Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException("lockTimeout must be positive, got " + value);
    }
    lockTimeout = value;
    return this;
  }

  /**
   * Copies each key's first record (not a delete) of a transaction straight into its table with
   * binary COPY, as into an empty table, instead of merging it: the cheapest way in for keys that
   * have no row yet, as most of a snapshot copy's have. A key that has a row makes the transaction
   * fail on the primary key (SQLSTATE 23505), never overwrites it; the writer then writes the
   * records again without this ({@link LockYieldingSink}). Default: off (keys go straight in only
   * when the table was empty when the transaction began).
   */
  public PostgresSinkBuilder newKeysStraightIn(boolean value) {
    newKeysStraightIn = value;
    return this;
  }

  /** Opens the sink on a new connection from the data source. */
  public PostgresRecordSink open() throws SQLException {
    return open(newKeysStraightIn);
  }

  /** {@link #open()} with {@link #newKeysStraightIn} as given. */
  PostgresRecordSink open(boolean straightIn) throws SQLException {
    Connection connection = dataSource.getConnection();
    try {
      return new PostgresRecordSink(dataSource, connection, options, claims, keepsHistory, projections, tables,
          lockTimeout, straightIn);
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }
}
