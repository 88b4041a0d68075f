package io.mongocdc.destination;

import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.Namespace;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Sets up a mirror's destination tables: one per source collection, named by {@link
 * TableNaming}, each with the columns {@link DestinationColumn#STATE_TABLE} (primary key {@code
 * _id}, the document key as {@code KeyRenderer} text).
 *
 * <p>The table comment records the source namespace, so a later set-up that maps another
 * collection to an existing table is refused as well.
 */
public final class PostgresDestination {

  static final String COMMENT_PREFIX = "mongo-cdc mirror of ";
  static final String HISTORY_COMMENT_PREFIX = "mongo-cdc history of ";

  private PostgresDestination() {}

  /**
   * The tables for {@code sources}, in order, without touching the database.
   *
   * @throws TableNameCollisionException if two sources map to the same table (naming both)
   */
  public static List<DestinationTable> plan(
      String schema, Collection<Namespace> sources, DestinationTableResolver naming) {
    Map<String, DestinationTable> byName = new LinkedHashMap<>();
    for (Namespace source : sources) {
      if (source.collection() == null) {
        throw new IllegalArgumentException(
            "a destination table needs a collection, got database-level namespace " + source);
      }
      String name = naming.tableFor(source);
      DestinationTable table = new DestinationTable(source, schema, name);
      DestinationTable existing = byName.putIfAbsent(name, table);
      if (existing != null && !existing.source().equals(source)) {
        throw new TableNameCollisionException(existing.source(), source, name);
      }
    }
    return List.copyOf(byName.values());
  }

  /**
   * The history tables ({@code <table>_history}) of those {@code tables} whose collection keeps a
   * history, without touching the database.
   *
   * @throws TableNameCollisionException if a history table would have the name of a state table
   *     (a collection {@code c_history} beside a collection {@code c} with history)
   */
  public static List<DestinationTable> planHistory(List<DestinationTable> tables, Predicate<Namespace> keepsHistory) {
    Map<String, DestinationTable> byName = new LinkedHashMap<>();
    tables.forEach(table -> byName.put(table.name(), table));
    List<DestinationTable> history = new ArrayList<>();
    for (DestinationTable table : tables) {
      if (keepsHistory.test(table.source())) {
        DestinationTable historyTable = historyOf(table);
        DestinationTable state = byName.get(historyTable.name());
        if (state != null) {
          throw new TableNameCollisionException(state.source(), table.source(), historyTable.name());
        }
        history.add(historyTable);
      }
    }
    return List.copyOf(history);
  }

  /** The history table of a state table: same collection and schema, named {@link TableNaming#historyTableName}. */
  public static DestinationTable historyOf(DestinationTable table) {
    return new DestinationTable(table.source(), table.schema(), TableNaming.historyTableName(table.name()));
  }

  /**
   * Plans and creates the tables (and the schema) in one transaction; existing tables of the
   * same source are kept as they are.
   *
   * @throws TableNameCollisionException if two sources map to one table, or an existing table
   *     already mirrors another collection
   */
  public static List<DestinationTable> setUp(
      Connection connection, String schema, Collection<Namespace> sources) throws SQLException {
    return setUp(connection, schema, sources, ns -> false);
  }

  /**
   * Like {@link #setUp(Connection, String, Collection)}, also creating the history table of
   * every source that keeps one. @return the state tables, then the history tables
   */
  public static List<DestinationTable> setUp(
      Connection connection, String schema, Collection<Namespace> sources, Predicate<Namespace> keepsHistory)
      throws SQLException {
    List<DestinationTable> tables = plan(schema, sources, TableNaming.instance());
    List<DestinationTable> history = planHistory(tables, keepsHistory);
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try {
      try (Statement st = connection.createStatement()) {
        st.execute("create schema if not exists " + TableNaming.quote(schema));
      }
      for (DestinationTable table : tables) {
        createTable(connection, table);
      }
      for (DestinationTable table : history) {
        createHistoryTable(connection, table);
      }
      connection.commit();
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    } finally {
      connection.setAutoCommit(autoCommit);
    }
    List<DestinationTable> all = new ArrayList<>(tables);
    all.addAll(history);
    return List.copyOf(all);
  }

  /**
   * Creates one table if missing, within the caller's transaction.
   *
   * @throws TableNameCollisionException if the table exists and mirrors another collection
   */
  static void createTable(Connection connection, DestinationTable table) throws SQLException {
    Namespace existing = mirroredNamespace(connection, table);
    if (existing != null && !existing.equals(table.source())) {
      throw new TableNameCollisionException(existing, table.source(), table.name());
    }
    Namespace historyOf = commentedNamespace(connection, table, HISTORY_COMMENT_PREFIX);
    if (historyOf != null) {
      throw new TableNameCollisionException(historyOf, table.source(), table.name());
    }
    String q = table.qualifiedName();
    try (Statement st = connection.createStatement()) {
      st.execute("create table if not exists " + q + " (" + DestinationColumn.definitions(DestinationColumn.STATE_TABLE)
          + ", primary key (" + DestinationColumn.ID.quoted() + "))");
    }
    if (existing == null) {
      comment(connection, q, COMMENT_PREFIX + table.source().fullName());
    }
  }

  private static void comment(Connection connection, String qualifiedTable, String text) throws SQLException {
    // The server quotes the literal (format's %L), so a collection name cannot end it early
    // whatever standard_conforming_strings says.
    String comment;
    try (PreparedStatement ps = connection.prepareStatement("select format('comment on table %s is %L', ?, ?)")) {
      ps.setString(1, qualifiedTable);
      ps.setString(2, text);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        comment = rs.getString(1);
      }
    }
    try (Statement st = connection.createStatement()) {
      st.execute(comment);
    }
  }

  /**
   * Creates a history table if missing, within the caller's transaction: the columns {@link
   * DestinationColumn#HISTORY_TABLE} (per event its position, the document's key, the operation,
   * the document after it, null for a delete, and before it when the stream carried a pre-image),
   * with primary key ({@code _position}, {@code _id}): one row per event (an event has one key; the
   * documents a snapshot copies share its starting position), and indexes on ({@code _id}, {@code
   * _position}) for a document's changes and on {@code _commit_time} for time ranges and retention.
   *
   * @throws TableNameCollisionException if the table exists and is not this collection's history
   */
  static void createHistoryTable(Connection connection, DestinationTable table) throws SQLException {
    Namespace historyOf = commentedNamespace(connection, table, HISTORY_COMMENT_PREFIX);
    if (historyOf != null) {
      if (!historyOf.equals(table.source())) {
        throw new TableNameCollisionException(historyOf, table.source(), table.name());
      }
      return;
    }
    if (tableExists(connection, table)) {
      // a state table, or a table of someone else's: never written as a history
      Namespace mirrored = mirroredNamespace(connection, table);
      throw new TableNameCollisionException(mirrored != null ? mirrored : table.source(), table.source(), table.name());
    }
    String q = table.qualifiedName();
    try (Statement st = connection.createStatement()) {
      String id = DestinationColumn.ID.quoted();
      String position = DestinationColumn.POSITION.quoted();
      st.execute("create table " + q + " (" + DestinationColumn.definitions(DestinationColumn.HISTORY_TABLE)
          + ", primary key (" + position + ", " + id + "))");
      // unnamed: the server picks names that fit, whatever the table's length
      st.execute("create index on " + q + " (" + id + ", " + position + ")");
      st.execute("create index on " + q + " (" + DestinationColumn.COMMIT_TIME.quoted() + ")");
    }
    comment(connection, q, HISTORY_COMMENT_PREFIX + table.source().fullName());
  }

  /** Whether the table exists (in any form). */
  static boolean exists(Connection connection, DestinationTable table) throws SQLException {
    return tableExists(connection, table);
  }

  private static boolean tableExists(Connection connection, DestinationTable table) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(
        "select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = ? and c.relname = ?")) {
      ps.setString(1, table.schema());
      ps.setString(2, table.name());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** The namespace an existing table's comment says it mirrors, or null. */
  static Namespace mirroredNamespace(Connection connection, DestinationTable table)
      throws SQLException {
    return commentedNamespace(connection, table, COMMENT_PREFIX);
  }

  /** The namespace after {@code prefix} in an existing table's comment, or null. */
  private static Namespace commentedNamespace(Connection connection, DestinationTable table, String prefix)
      throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "select obj_description(c.oid, 'pg_class') from pg_class c"
                + " join pg_namespace n on n.oid = c.relnamespace"
                + " where n.nspname = ? and c.relname = ?")) {
      ps.setString(1, table.schema());
      ps.setString(2, table.name());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        String comment = rs.getString(1);
        if (comment == null || !comment.startsWith(prefix)) {
          return null;
        }
        String full = comment.substring(prefix.length());
        int dot = full.indexOf('.');
        return dot < 0 ? new Namespace(full, null)
            : new Namespace(full.substring(0, dot), full.substring(dot + 1));
      }
    }
  }

  /** Lists the tables of a schema that mirror a collection (by their comment). */
  public static List<String> mirroredTables(Connection connection, String schema)
      throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement ps =
        connection.prepareStatement(
            "select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace"
                + " where n.nspname = ? and c.relkind = 'r'"
                + " and obj_description(c.oid, 'pg_class') like ? order by 1")) {
      ps.setString(1, schema);
      ps.setString(2, COMMENT_PREFIX + "%");
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
    }
    return names;
  }
}
