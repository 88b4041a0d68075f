package io.mongocdc.destination;

import io.mongocdc.ports.MirrorDestination;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Settings of the PostgreSQL destination, with their defaults in {@link #defaults()}.
 *
 * @param schema the schema destination tables live in (created if missing). Default {@code
 *     public}.
 * @param deleteMode soft (flag) or hard (remove) deletes. Default {@link DeleteMode#SOFT}.
 * @param mergeWorkMem {@code work_mem} of the sink's transactions (merges join staged records
 *     to the table), e.g. {@code 64MB}; null keeps the server's. Default {@code 64MB}.
 * @param tempBuffers {@code temp_buffers} of the sink's session (the staging tables are
 *     temporary tables), e.g. {@code 64MB}; null keeps the server's. Default {@code 64MB}.
 * @param applyConnections apply lanes per batch: connections (and transactions) that apply one
 *     batch's records in parallel, each key always on the same one. Default 2.
 * @param flushRecords a table's records are merged once this many distinct keys wait. A merge
 *     costs a fixed few round trips and a plan, and PostgreSQL joins a few thousand rows at once
 *     far more cheaply per row than a few hundred, so by default a batch's records wait for its
 *     commit unless they are many. Default 10 000.
 * @param flushBytes every table's waiting records are merged once they hold this many source
 *     bytes together: the sink's memory bound. Default 16 MiB.
 * @param connections the worker's pool of connections to each destination peer. Batches lease
 *     theirs whole from it (apply lanes plus one each, see {@code MirrorDestination#connectionsFor})
 *     and take turns when they do not all fit; {@link #RESERVED_CONNECTIONS} of them stay for work
 *     outside batches (set-up, verify, typed columns). Default ({@link #defaultPool}): room for one
 *     batch per processor, at least 2 ({@link #defaultBatchesAtOnce()}): more batches at once than
 *     the worker has cores move fewer events together, not more (see docs/benchmarks.md); and for
 *     one snapshot partition more.
 */
public record PostgresSinkOptions(
    String schema,
    DeleteMode deleteMode,
    String mergeWorkMem,
    String tempBuffers,
    int applyConnections,
    int flushRecords,
    long flushBytes,
    int connections) {

  public static final int DEFAULT_APPLY_CONNECTIONS = 2;
  public static final int DEFAULT_FLUSH_RECORDS = 10_000;
  public static final long DEFAULT_FLUSH_BYTES = 16L << 20;
  /** Connections of the pool that batches never lease: set-up, verify, typed-column and rewrite work use them. */
  public static final int RESERVED_CONNECTIONS = 2;

  private static final Pattern MEMORY = Pattern.compile("[0-9]+ ?(kB|MB|GB)?");

  public PostgresSinkOptions {
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(deleteMode, "deleteMode must be SOFT or HARD");
    DestinationTable.requireIdentifier("schema", schema);
    requireMemory("mergeWorkMem", mergeWorkMem);
    requireMemory("tempBuffers", tempBuffers);
    requireAtLeast("applyConnections", applyConnections, 1);
    requireAtLeast("flushRecords", flushRecords, 1);
    requireAtLeast("flushBytes", flushBytes, 1);
    requireAtLeast("connections", connections, poolFor(1, applyConnections));
  }

  /** Batches that hold their connections at once by default: one per processor, at least 2. */
  public static int defaultBatchesAtOnce() {
    return Math.max(2, Runtime.getRuntime().availableProcessors());
  }

  /** The pool in which {@code batches} batches of {@code lanes} apply lanes hold their connections at once. */
  public static int poolFor(int batches, int lanes) {
    return RESERVED_CONNECTIONS + batches * MirrorDestination.connectionsFor(lanes);
  }

  /**
   * The default pool: {@link #poolFor} the default batches, and one snapshot partition's
   * connections more. Copies are made beside the batches and take their connections from the
   * same pool; without these, a copy beside a batch ran two partitions at once on 2 cores where a
   * copy alone had run three, and a first snapshot of a million documents per collection took
   * about 1.1 times as long (docs/benchmarks.md). Batches at once stay as many: the extra connections
   * are fewer than a batch's.
   */
  public static int defaultPool(int lanes) {
    return poolFor(defaultBatchesAtOnce(), lanes) + MirrorDestination.connectionsFor(1);
  }

  /** The connections batches lease from the pool: all but the reserved ones. */
  public int batchConnections() {
    return connections - RESERVED_CONNECTIONS;
  }

  /** Batches that hold their connections at once, each with its apply lanes; the others wait their turn. */
  public int batchesAtOnce() {
    return batchConnections() / MirrorDestination.connectionsFor(applyConnections);
  }

  public static PostgresSinkOptions defaults() {
    return new PostgresSinkOptions("public", DeleteMode.SOFT, "64MB", "64MB", DEFAULT_APPLY_CONNECTIONS,
        DEFAULT_FLUSH_RECORDS, DEFAULT_FLUSH_BYTES, defaultPool(DEFAULT_APPLY_CONNECTIONS));
  }

  public PostgresSinkOptions withSchema(String value) {
    return new PostgresSinkOptions(value, deleteMode, mergeWorkMem, tempBuffers, applyConnections, flushRecords,
        flushBytes, connections);
  }

  public PostgresSinkOptions withDeleteMode(DeleteMode value) {
    return new PostgresSinkOptions(schema, value, mergeWorkMem, tempBuffers, applyConnections, flushRecords,
        flushBytes, connections);
  }

  /** With {@code lanes} apply lanes per batch and a pool of {@code pool} connections per destination peer. */
  public PostgresSinkOptions withConnections(int lanes, int pool) {
    return new PostgresSinkOptions(schema, deleteMode, mergeWorkMem, tempBuffers, lanes, flushRecords, flushBytes,
        pool);
  }

  public PostgresSinkOptions withFlush(int records, long bytes) {
    return new PostgresSinkOptions(schema, deleteMode, mergeWorkMem, tempBuffers, applyConnections, records, bytes,
        connections);
  }

  private static void requireMemory(String name, String value) {
    if (value != null && !MEMORY.matcher(value).matches()) {
      throw new IllegalArgumentException(
          name + " must be a PostgreSQL memory size like 64MB, got '" + value + "'");
    }
  }

  private static void requireAtLeast(String name, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min + ", got " + value);
    }
  }
}
