package io.mongocdc.ports;

import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.decode.DestinationTableResolver;
import io.mongocdc.decode.Namespace;
import io.mongocdc.source.ResumeToken;
import java.time.Instant;
import io.mongocdc.pipeline.RecordScreen;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import java.util.List;
import java.util.Optional;

/**
 * The PostgreSQL side of a mirror: its tables and the sink a batch writes to. Implementations
 * resolve the destination peer through the worker's {@link PeerRegistry}, and apply records
 * idempotently (a replayed or older event never overwrites a newer one).
 */
public interface MirrorDestination {

  /**
   * Checks the destination peer is reachable, the schema usable, and that none of the mirror's
   * tables is another mirror's (without recording anything).
   *
   * @throws TableOwnedByAnotherMirrorException if one is
   */
  void validate(MirrorConfig mirror);

  /**
   * Records the mirror's tables as its own ({@link TableOwnership}), then creates them if
   * missing; idempotent. @return the tables, qualified
   *
   * @throws TableOwnedByAnotherMirrorException if one is another mirror's (nothing is created)
   */
  List<String> createTables(MirrorConfig mirror);

  /** Names the table each source namespace goes to. */
  DestinationTableResolver tableResolver(MirrorConfig mirror);

  /**
   * What one batch attempt asks before writing a record: whether the destination can hold it
   * (see {@code poisonEventPolicy}). Asked in stream order; a new one per attempt.
   */
  default RecordScreen screen(MirrorConfig mirror) {
    return RecordScreen.ACCEPT_ALL;
  }

  /** A sink for one batch attempt: one connection and transaction. */
  RecordSink openSink(MirrorConfig mirror, long batchId);

  /**
   * A sink for a snapshot partition's copy, which runs beside change batches and commits each
   * chunk: its transactions give way to a batch's locks instead of holding the batch up or
   * deadlocking with it, and a transaction that gave way is written again. Between two
   * transactions it asks {@code giveWay} whether a batch waits for its connections, and hands them
   * over if one does. By default a plain {@link #openSink}.
   */
  default RecordSink openCopySink(MirrorConfig mirror, GiveWay giveWay) {
    return openSink(mirror, 0);
  }

  /**
   * How many sinks one batch applies through in parallel (apply lanes). Every key always goes
   * to the same one, so they may commit in any order; the checkpoint moves when all have.
   */
  default int applyLanes(MirrorConfig mirror) {
    return 1;
  }

  /**
   * The destination connections a unit of work with {@code sinks} sinks open at once needs: one
   * per sink and one for what it does beside them (a table met on the way, history pruning).
   */
  static int connectionsFor(int sinks) {
    return sinks + 1;
  }

  /**
   * The lease of {@code connections} of the mirror's destination connections if they are free and
   * no other work waits for connections before this one; empty otherwise (then {@link
   * #awaitConnections}). By default there is no budget: always a lease.
   */
  default Optional<ConnectionLease> tryReserveConnections(MirrorConfig mirror, int connections) {
    return java.util.Optional.of(ConnectionLease.NONE);
  }

  /**
   * Waits, behind the work that asked before it, until {@code connections} of the mirror's
   * destination connections are free, and leases them: a batch holds all its connections or
   * none. Interrupting the thread ends the wait.
   */
  default ConnectionLease awaitConnections(MirrorConfig mirror, int connections) throws InterruptedException {
    return ConnectionLease.NONE;
  }

  /**
   * The tables the mirror's configured collections map to, without touching the database: for
   * a mirror whose tables were never recorded (set up before the catalog recorded them).
   */
  List<MirrorTable> plannedTables(MirrorConfig mirror);

  /**
   * Removes history rows older than the mirror's {@code historyRetentionDays}, at most a bounded
   * number per history table, so one call stays short; the next batch's call goes on. @return the
   * rows removed (0 without retention)
   */
  default long pruneHistory(MirrorConfig mirror) {
    return 0;
  }

  /**
   * The source collections of the mirror's database whose tables on this destination are
   * recorded for the mirror ({@link TableOwnership}), sorted; none if this destination records
   * no tables.
   */
  default List<String> recordedCollections(MirrorConfig mirror) {
    return List.of();
  }

  /** Connects to the destination peer once, so an operation can fail before it changes anything. */
  void checkReachable(String destinationPeer);

  /**
   * Reads the mirror's tables for verify, without changing them.
   *
   * @throws InvalidMirrorConfigurationException if this destination cannot be read so
   */
  default DestinationRows rows(MirrorConfig mirror) {
    throw new InvalidMirrorConfigurationException("this destination cannot be read for verify");
  }

  /**
   * Deletes, as delete events at {@code position} would, the live rows of {@code table} whose
   * position is older than {@code position}: after a resync's copy, the rows it did not see.
   *
   * @return rows deleted
   * @throws InvalidMirrorConfigurationException if this destination cannot
   */
  default long deleteRowsOlderThan(MirrorConfig mirror, Namespace source, String table, ResumeToken position,
      Instant commitTime) {
    throw new InvalidMirrorConfigurationException("this destination cannot sweep rows a resync did not see");
  }

  /**
   * Before a copy of {@code source}, whose history is on: every document its history shows alive
   * that {@code table} holds deleted (a tombstone: at the tombstone's position) or not at all (at
   * {@code position}, the copy's start) gets a {@code delete} history row. The copy writes an
   * {@code insert} for every current document, so with these the history starts over from the
   * state of every row, deleted ones too, after history was off. Idempotent. By default nothing.
   *
   * @return history rows appended
   */
  default long markDeletesInHistory(MirrorConfig mirror, Namespace source, String table, ResumeToken position,
      Instant commitTime) {
    return 0;
  }

  /**
   * Aligns the tables of the mirror's collections (named, or recorded for a mirror of every
   * collection) with its typed columns. The first call of an alignment ({@code resumeAfter} null)
   * takes the columns in {@code refillColumns} and {@code removedColumns} out of the rows'
   * {@code _drift}, drops those in {@code dropColumns}, empties those in {@code refillColumns},
   * and adds the missing ones; every call then fills the typed columns of rows that do not
   * hold them from their {@code doc}, a bounded slice of rows, calling {@code progress} after each
   * transaction.
   * @return what it filled, and where the next call goes on (null when done)
   */
  default TypedColumnsAligned alignTypedColumns(TypedColumnsRequest request, Runnable progress) {
    return new TypedColumnsAligned(0, null);
  }

  /**
   * Applies {@code added}, the field rules {@code rewrite} adds, to a bounded slice of the rows the
   * mirror's tables (state, then history, collection by collection) hold whose {@code _position}
   * is after {@code after} and not after {@code upTo} (the positions of {@code rewrite.after()} and
   * {@code rewrite.upTo()}; null for no bound), calling {@code progress} after each transaction.
   *
   * @return the rewrite with its new place; {@link FieldRuleRewrite#done} once no row is left
   */
  default FieldRuleRewrite rewriteFieldRules(MirrorConfig mirror, FieldRuleRewrite rewrite, ResumeToken after,
      ResumeToken upTo, MirrorRedaction added, Runnable progress) {
    return rewrite.finished(rewrite.rowsRewritten());
  }

  /** Creates the mirror's declared typed column indexes concurrently, if missing. @return indexes built */
  default int createTypedColumnIndexes(MirrorConfig mirror, Runnable progress) {
    return 0;
  }

  /** Drops these tables if they exist (on an operator's explicit request only). */
  void dropTables(List<MirrorTable> tables);
}
