package io.mongocdc.destination;

import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.ports.ConnectionLease;
import io.mongocdc.ports.DestinationRows;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.decode.MirrorColumns;
import io.mongocdc.ports.GiveWay;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.decode.MirrorHistory;
import io.mongocdc.ports.MirrorTable;
import io.mongocdc.ports.PeerRegistry;
import io.mongocdc.ports.TableOwnership;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.pipeline.RecordScreen;
import io.mongocdc.secrets.Redaction;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * The activities' destination port on PostgreSQL: one table per watched collection in the
 * mirror's schema, and a {@link PostgresRecordSink} per batch attempt. Connections come from the
 * destination peer's JDBC URL, resolved on the worker. Every table is recorded as the mirror's in
 * the catalog ({@link TableOwnership}) before it is created, at set-up or on the way, so a
 * mirror never writes another mirror's table.
 */
public final class PostgresMirrorDestination implements MirrorDestination {

  /**
   * Delete records a sweep commits at once. The sweep runs beside change batches and gives way to
   * their locks ({@link LockYieldingSink}), so each transaction is kept as short as a copy's chunk.
   */
  static final int SWEEP_CHUNK = 1_000;

  /** History rows one prune removes per table, at most: one short statement per batch and table. */
  static final int PRUNE_ROWS_PER_TABLE = 10_000;

  /** Rows filled per transaction, and per call: one call stays short, so batches run between calls. */
  static final int BACKFILL_ROWS_PER_TRANSACTION = 1_000;
  static final int BACKFILL_ROWS_PER_CALL = 50_000;

  private final PeerRegistry peers;
  private final PostgresSinkOptions options;
  private final TableOwnership ownership;
  private final Map<String, DataSource> dataSources = new ConcurrentHashMap<>();
  private final Map<String, ConnectionBudget> budgets = new ConcurrentHashMap<>();

  public PostgresMirrorDestination(PeerRegistry peers, PostgresSinkOptions options, TableOwnership ownership) {
    this.peers = peers;
    this.options = options;
    this.ownership = ownership;
  }

  /** Also refuses, without recording anything, a mirror whose tables are another mirror's. */
  @Override
  public void validate(MirrorConfig mirror) {
    List<DestinationTable> tables;
    try {
      tables = planWithHistory(mirror);
    } catch (TableNameCollisionException e) {
      throw new InvalidMirrorConfigurationException(e.getMessage());
    }
    checkReachable(mirror.destinationPeer());
    ownership.requireAvailable(mirror.name(), recorded(mirror.destinationPeer(), tables));
  }

  /** Records the tables as the mirror's (refused if one is another's), then creates them. */
  @Override
  public List<String> createTables(MirrorConfig mirror) {
    List<DestinationTable> tables = planWithHistory(mirror);
    ownership.claim(mirror.name(), recorded(mirror.destinationPeer(), tables));
    try (Connection connection = dataSource(mirror.destinationPeer()).getConnection()) {
      return PostgresDestination.setUp(connection, mirror.destinationSchema(), sources(mirror), MirrorHistory.keepsHistory(mirror))
          .stream()
          .map(DestinationTable::qualifiedName)
          .toList();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the tables of mirror " + mirror.name() + ": "
          + Redaction.redact(e.getMessage()), e);
    }
  }

  @Override
  public DestinationTableResolver tableResolver(MirrorConfig mirror) {
    return TableNaming.instance();
  }

  @Override
  public RecordScreen screen(MirrorConfig mirror) {
    return new PostgresRecordScreen(dataSource(mirror.destinationPeer()), mirror.destinationSchema(), plan(mirror));
  }

  @Override
  public RecordSink openSink(MirrorConfig mirror, long batchId) {
    try {
      return sinkBuilder(mirror).open();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot open the destination of mirror " + mirror.name() + ": "
          + Redaction.redact(e.getMessage()), e);
    }
  }

  /**
   * Opens nothing yet: each of its transactions opens a sink that gives way to batches' locks, and
   * between them to batches waiting for connections.
   */
  @Override
  public RecordSink openCopySink(MirrorConfig mirror, GiveWay giveWay) {
    return LockYieldingSink.of(sinkBuilder(mirror), "the copy", true, giveWay);
  }

  private PostgresSinkBuilder sinkBuilder(MirrorConfig mirror) {
    return PostgresRecordSink.builder(dataSource(mirror.destinationPeer()),
            options.withSchema(mirror.destinationSchema()), plan(mirror))
        .claims(table -> ownership.claim(mirror.name(), List.of(recorded(mirror.destinationPeer(), table))))
        .keepsHistory(MirrorHistory.keepsHistory(mirror))
        .projections(MirrorColumns.of(mirror, TranscodingJsonRenderer.relaxed()));
  }

  @Override
  public DestinationRows rows(MirrorConfig mirror) {
    return new PostgresDestinationRows(dataSource(mirror.destinationPeer()));
  }

  /**
   * Keys read in one statement, deletes written in chunks, each committed on its own and written
   * again when it gave way to a batch's lock. A sweep that fails part way has deleted some rows;
   * run again it reads the keys still older and deletes those.
   */
  @Override
  public long deleteRowsOlderThan(MirrorConfig mirror, Namespace source, String table, ResumeToken position,
      Instant commitTime) {
    List<String> keys;
    try {
      keys = new PostgresDestinationRows(dataSource(mirror.destinationPeer()))
          .liveKeysOlderThan(mirror, table, position.data());
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the rows of " + table + ": " + Redaction.redact(e.getMessage()), e);
    }
    if (keys.isEmpty()) {
      return 0;
    }
    try (RecordSink sink = LockYieldingSink.of(sinkBuilder(mirror), "the sweep", false)) {
      try {
        for (int from = 0; from < keys.size(); from += SWEEP_CHUNK) {
          List<ChangeRecord> deletes = new ArrayList<>();
          for (String key : keys.subList(from, Math.min(keys.size(), from + SWEEP_CHUNK))) {
            deletes.add(ChangeRecord.builder().operation(Operation.DELETE).source(source).table(table).key(key)
                .position(position).commitTime(commitTime).build());
          }
          sink.write(deletes);
          sink.commit();
        }
      } catch (Exception e) {
        sink.abort(e);
        throw new IllegalStateException("cannot delete the unseen rows of " + table + ": "
            + Redaction.redact(String.valueOf(e.getMessage())), e);
      }
    }
    return keys.size();
  }

  /**
   * Claims and creates the history table first if no batch has yet (history just turned on), so
   * the copy's rows and these land in the same table.
   */
  @Override
  public long markDeletesInHistory(MirrorConfig mirror, Namespace source, String table, ResumeToken position,
      Instant commitTime) {
    if (!MirrorHistory.keepsHistory(mirror).test(source)) {
      return 0;
    }
    createTables(mirror.withCollections(List.of(source.collection())));
    DestinationTable state = new DestinationTable(source, mirror.destinationSchema(), table);
    try (Connection connection = dataSource(mirror.destinationPeer()).getConnection()) {
      connection.setAutoCommit(false);
      long marked = new HistoryGapDeletes(state).mark(connection, position.data(), commitTime);
      connection.commit();
      return marked;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot mark the deletes missing from the history of " + table + ": "
          + Redaction.redact(e.getMessage()), e);
    }
  }

  @Override
  public TypedColumnsAligned alignTypedColumns(TypedColumnsRequest request, Runnable progress) {
    MirrorConfig mirror = request.mirror();
    String resumeAfter = request.resumeAfter();
    DataSource data = dataSource(mirror.destinationPeer());
    ColumnProjections projections = MirrorColumns.of(mirror, TranscodingJsonRenderer.relaxed());
    // In collection order: the resume point names a collection and a key.
    List<DestinationTable> tables = new ArrayList<>(tablesOf(mirror));
    tables.sort(Comparator.comparing(t -> t.source().collection()));
    try {
      if (resumeAfter == null) {
        DestinationDdl.run(data, mirror.destinationSchema(), ddl -> {
          for (DestinationTable table : tables) {
            if (!PostgresDestination.exists(ddl, table)) {
              continue; // created with its columns by the first sink that meets it
            }
            String collection = table.source().collection();
            List<String> emptied = request.refillColumns().getOrDefault(collection, List.of());
            List<String> forgotten = new ArrayList<>(emptied);
            forgotten.addAll(request.removedColumns().getOrDefault(collection, List.of()));
            TypedColumnTable.forgetDrift(ddl, table, forgotten);
            // A column to refill is dropped too, and added again below: every cell reads NULL,
            // whatever type it had, and the fill converts every row under its current definition.
            List<String> dropped = new ArrayList<>(request.dropColumns().getOrDefault(collection, List.of()));
            dropped.addAll(emptied);
            TypedColumnTable.drop(ddl, table, dropped);
            DocumentProjector projector = projections.of(table.source());
            if (projector != null) {
              TypedColumnTable.addMissing(ddl, table, projector.columns());
            }
          }
        });
      }
      String fromCollection = resumeAfter == null ? "" : resumeAfter.substring(0, resumeAfter.indexOf('\0'));
      String fromKey = resumeAfter == null ? "" : resumeAfter.substring(resumeAfter.indexOf('\0') + 1);
      long[] filled = {0};
      try (Connection connection = data.getConnection()) {
        connection.setAutoCommit(false);
        for (DestinationTable table : tables) {
          DocumentProjector projector = projections.of(table.source());
          String collection = table.source().collection();
          if (projector == null || collection.compareTo(fromCollection) < 0
              || !PostgresDestination.exists(connection, table)) {
            continue;
          }
          TypedColumnBackfill backfill = new TypedColumnBackfill(table, projector);
          String key = collection.equals(fromCollection) ? fromKey : "";
          while (key != null) {
            if (filled[0] >= BACKFILL_ROWS_PER_CALL) {
              return new TypedColumnsAligned(filled[0], collection + '\0' + key);
            }
            try {
              key = backfill.fillNext(connection, key, BACKFILL_ROWS_PER_TRANSACTION, filled);
            } catch (SQLException e) {
              // Where it stopped, so an operator can look at the rows (and, if a column cannot be
              // filled, remove it with --remove-column and resume).
              throw new SQLException("filling " + table.qualifiedName() + (key.isEmpty() ? " from its first row"
                  : " after _id " + key) + ": " + e.getMessage(), e.getSQLState(), e);
            }
            progress.run();
          }
        }
      }
      return new TypedColumnsAligned(filled[0], null);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot fill the typed columns of mirror " + mirror.name() + ": "
          + Redaction.redact(e.getMessage()), e);
    }
  }

  @Override
  public FieldRuleRewrite rewriteFieldRules(MirrorConfig mirror, FieldRuleRewrite rewrite, ResumeToken afterPosition,
      ResumeToken upToPosition, MirrorRedaction added, Runnable progress) {
    DataSource data = dataSource(mirror.destinationPeer());
    TranscodingJsonRenderer renderer = TranscodingJsonRenderer.relaxed();
    ColumnProjections projections = MirrorColumns.of(mirror, renderer);
    FieldRuleRewriter.Range range = new FieldRuleRewriter.Range(
        afterPosition == null ? null : afterPosition.data(), upToPosition == null ? null : upToPosition.data());
    List<String> collections = List.copyOf(rewrite.rules().collections().keySet());
    FieldRuleRewriteProgress committed = new FieldRuleRewriteProgress(mirror.destinationSchema(), mirror.name(),
        rewrite.id());
    long rows = rewrite.rowsRewritten();
    long budget = rows + BACKFILL_ROWS_PER_CALL;
    try (Connection connection = data.getConnection()) {
      connection.setAutoCommit(false);
      committed.ensureTable(connection);
      // A call retried after a crash goes on after the last row a transaction of it committed.
      FieldRuleRewriteProgress.At at = committed.committed(connection);
      if (at == null && rewrite.collection() != null) {
        at = new FieldRuleRewriteProgress.At(rewrite.collection(), rewrite.stage(), rewrite.afterPosition(),
            rewrite.afterKey());
      }
      int from = at == null ? 0 : Math.max(0, collections.indexOf(at.collection()));
      for (int c = from; c < collections.size(); c++) {
        String collection = collections.get(c);
        boolean resumes = at != null && c == from && collection.equals(at.collection());
        Namespace source = new Namespace(mirror.sourceDatabase(), collection);
        DestinationTable state = new DestinationTable(source, mirror.destinationSchema(),
            tableResolver(mirror).tableFor(source));
        DestinationTable history = new DestinationTable(source, mirror.destinationSchema(),
            TableNaming.historyTableName(state.name()));
        var rules = added.of(collection);
        if (rules == null) {
          continue;
        }
        boolean historyStage = resumes && FieldRuleRewrite.HISTORY.equals(at.stage());
        if (!historyStage && PostgresDestination.exists(connection, state)) {
          FieldRuleRewriter rewriter = new FieldRuleRewriter(state, rules, renderer, projections.of(source), committed);
          String key = resumes && at.key() != null ? at.key() : "";
          while (key != null) {
            if (rows >= budget) {
              return rewrite.at(collection, FieldRuleRewrite.TABLE, null, key, rows);
            }
            FieldRuleRewriter.Next next = rewriter.rewriteTable(connection, key, range, BACKFILL_ROWS_PER_TRANSACTION);
            rows += next == null ? 0 : next.rewritten();
            key = next == null ? null : next.key();
            progress.run();
          }
        }
        if (PostgresDestination.exists(connection, history)) {
          FieldRuleRewriter rewriter = new FieldRuleRewriter(history, rules, renderer, null, committed);
          String position = historyStage && at.position() != null ? at.position() : "";
          String key = historyStage && at.key() != null ? at.key() : "";
          while (position != null) {
            if (rows >= budget) {
              return rewrite.at(collection, FieldRuleRewrite.HISTORY, position, key, rows);
            }
            FieldRuleRewriter.Next next = rewriter.rewriteHistory(connection, position, key, range,
                BACKFILL_ROWS_PER_TRANSACTION);
            rows += next == null ? 0 : next.rewritten();
            position = next == null ? null : next.position();
            key = next == null ? null : next.key();
            progress.run();
          }
        }
      }
      return rewrite.finished(rows);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot rewrite the rows of mirror " + mirror.name() + " under its added field"
          + " rules (" + rewrite.describe() + "): " + Redaction.redact(e.getMessage()), e);
    }
  }

  @Override
  public int createTypedColumnIndexes(MirrorConfig mirror, Runnable progress) {
    int built = 0;
    try (Connection connection = dataSource(mirror.destinationPeer()).getConnection()) {
      connection.setAutoCommit(true);
      for (DestinationTable table : tablesOf(mirror)) {
        for (String column : mirror.settings().columns().indexes().getOrDefault(table.source().collection(),
            List.of())) {
          if (PostgresDestination.exists(connection, table) && TypedColumnIndexes.create(connection, table, column)) {
            built++;
          }
          progress.run();
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot index the typed columns of mirror " + mirror.name() + ": "
          + Redaction.redact(e.getMessage()), e);
    }
    return built;
  }

  @Override
  public int applyLanes(MirrorConfig mirror) {
    return options.applyConnections();
  }

  @Override
  public Optional<ConnectionLease> tryReserveConnections(MirrorConfig mirror, int connections) {
    return budget(mirror.destinationPeer()).tryAcquire(connections);
  }

  @Override
  public ConnectionLease awaitConnections(MirrorConfig mirror, int connections) throws InterruptedException {
    return budget(mirror.destinationPeer()).acquire(connections);
  }

  private ConnectionBudget budget(String destinationPeer) {
    return budgets.computeIfAbsent(destinationPeer, name -> new ConnectionBudget(options.batchConnections()));
  }

  @Override
  public List<MirrorTable> plannedTables(MirrorConfig mirror) {
    return recorded(mirror.destinationPeer(), planWithHistory(mirror));
  }

  @Override
  public List<String> recordedCollections(MirrorConfig mirror) {
    String prefix = mirror.sourceDatabase() + ".";
    return ownership.tablesOf(mirror.name()).stream()
        .filter(table -> table.destinationPeer().equals(mirror.destinationPeer()))
        .map(MirrorTable::sourceNamespace)
        .filter(namespace -> namespace.startsWith(prefix) && namespace.length() > prefix.length())
        .map(namespace -> namespace.substring(prefix.length()))
        .distinct()
        .sorted()
        .toList();
  }

  @Override
  public long pruneHistory(MirrorConfig mirror) {
    int days = mirror.settings().history().retentionDays();
    if (days == 0) {
      return 0;
    }
    List<Namespace> sources = mirror.settings().history().collections().stream()
        .map(c -> new Namespace(mirror.sourceDatabase(), c)).toList();
    long pruned = 0;
    try (Connection connection = dataSource(mirror.destinationPeer()).getConnection()) {
      for (DestinationTable state : PostgresDestination.plan(mirror.destinationSchema(), sources, TableNaming.instance())) {
        pruned += HistoryRetention.prune(connection, state, days, PRUNE_ROWS_PER_TABLE);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot prune the history of mirror " + mirror.name() + ": "
          + Redaction.redact(e.getMessage()), e);
    }
    return pruned;
  }

  /**
   * On a connection of its own, not the pool's: the pool waits its whole timeout for a server
   * that refuses connections, a direct connection fails at once with the server's reason.
   */
  @Override
  public void checkReachable(String destinationPeer) {
    try (Connection connection = PostgresUrls.dataSource(describe(destinationPeer),
            peers.resolve(destinationPeer).connectionString()).getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute("select 1");
    } catch (SQLException e) {
      throw new InvalidMirrorConfigurationException("destination " + destinationPeer + " is not usable: "
          + Redaction.redact(e.getMessage()));
    }
  }

  @Override
  public void dropTables(List<MirrorTable> tables) {
    for (MirrorTable table : tables) {
      try (Connection connection = dataSource(table.destinationPeer()).getConnection();
          Statement statement = connection.createStatement()) {
        statement.execute("drop table if exists " + TableNaming.qualified(table.schema(), table.table()));
      } catch (SQLException e) {
        throw new IllegalStateException("cannot drop destination table " + table.describe() + ": "
            + Redaction.redact(e.getMessage()), e);
      }
    }
  }

  private static List<MirrorTable> recorded(String destinationPeer, List<DestinationTable> tables) {
    return tables.stream().map(table -> recorded(destinationPeer, table)).toList();
  }

  private static MirrorTable recorded(String destinationPeer, DestinationTable table) {
    return new MirrorTable(destinationPeer, table.schema(), table.name(), table.source().fullName());
  }

  /** The mirror's destination tables, one per collection, as they are (or will be) created. */
  private static List<DestinationTable> plan(MirrorConfig mirror) {
    return PostgresDestination.plan(mirror.destinationSchema(), sources(mirror), TableNaming.instance());
  }

  /**
   * The tables typed columns live in: those of the named collections, or for a mirror of every
   * collection, those recorded for it so far (a table created later gets its columns with it).
   */
  private List<DestinationTable> tablesOf(MirrorConfig mirror) {
    return mirror.collections().isEmpty()
        ? plan(mirror.withCollections(recordedCollections(mirror)))
        : plan(mirror);
  }

  /** The state tables, then the history tables of the collections that keep one. */
  private static List<DestinationTable> planWithHistory(MirrorConfig mirror) {
    List<DestinationTable> tables = new ArrayList<>(plan(mirror));
    tables.addAll(PostgresDestination.planHistory(tables, MirrorHistory.keepsHistory(mirror)));
    return tables;
  }

  private static List<Namespace> sources(MirrorConfig mirror) {
    return mirror.collections().stream().map(c -> new Namespace(mirror.sourceDatabase(), c)).toList();
  }

  /**
   * The peer's pool: {@link PostgresSinkOptions#connections()} sessions, which batches lease whole
   * from its {@link ConnectionBudget}, so a batch that holds its lease finds its connections free.
   * Checked against the server's {@code max_connections} when first made.
   */
  private DataSource dataSource(String destinationPeer) {
    DataSource known = dataSources.get(destinationPeer);
    if (known != null) {
      return known;
    }
    boolean[] made = {false};
    DataSource pool = dataSources.computeIfAbsent(destinationPeer, name -> {
      made[0] = true;
      return PostgresUrls.pool("pg-destination-" + name, describe(name), peers.resolve(name).connectionString(),
          options.connections());
    });
    if (made[0]) {
      ConnectionHeadroom.checkInBackground(destinationPeer, pool, options.connections());
    }
    return pool;
  }

  private static String describe(String destinationPeer) {
    return "the connection string of PostgreSQL peer '" + destinationPeer + "'";
  }
}
