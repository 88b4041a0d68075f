package io.mongocdc.benchmarks;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjection;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.ColumnType;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.destination.DestinationTable;
import io.mongocdc.destination.PostgresDestination;
import io.mongocdc.destination.PostgresRecordSink;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.destination.TableNaming;
import io.mongocdc.pipeline.ApplyRouting;
import io.mongocdc.source.ResumeToken;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.bson.RawBsonDocument;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/**
 * The PostgreSQL destination against its floor, on an embedded PostgreSQL started per trial.
 *
 * <ul>
 *   <li>{@code plainCopy}: one binary COPY of 100 000 rows of about 1 KB ({@code _id} text,
 *       {@code doc} jsonb, position text, commit time) into an unindexed table. Nothing can load
 *       the same rows faster over JDBC: the floor.
 *   <li>{@code apply}: the same rows as inserts into an emptied mirror table through one {@link
 *       PostgresRecordSink}, as the pipeline drives it: {@code write} in chunks of 256 records,
 *       then {@code commit}.
 *   <li>{@code applyUpdates}: the case users live in: every key already has an older row, so
 *       every record is merged (an UPDATE of every row), through {@code lanes} sinks in
 *       parallel, each record routed to its lane as the pipeline routes it.
 *   <li>{@code applyMix}: a realistic batch over a table of 100 000 existing rows: 60 % updates
 *       of existing keys, 15 % inserts of new keys, 10 % deletes, 15 % repeated keys (a second
 *       or third change of a key earlier in the batch), through {@code lanes} sinks.
 * </ul>
 *
 * <ul>
 *   <li>{@code applyTyped}: the typed columns' cost (issue 19): the same 100 000 documents as
 *       inserts into an emptied table ({@code mode=insert}, the direct COPY) or as updates of
 *       older rows ({@code mode=update}, the merge), through one sink, with {@code columns=doc}
 *       (none) or {@code five} typed columns (bigint, text, boolean, timestamptz, and a nested
 *       text); the measured time includes extracting the five values from each raw document, as
 *       the decode pool does.
 * </ul>
 *
 * Scores are rows (records) per second (ops/s with 100 000 operations per invocation). Tables
 * are emptied or restored to their older rows before each invocation, outside the measured time.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 10)
@Measurement(iterations = 3, time = 10)
public class DestinationBenchmark {

  static final int ROWS = 100_000;
  static final int CHUNK = 256;
  static final String SCHEMA = "bench";

  EmbeddedPostgres postgres;
  DataSource dataSource;
  List<ChangeRecord> records;
  PostgresRecordSink sink;
  DestinationTable mirrorTable;
  Connection copyConnection;
  Connection adminConnection;

  @Setup(Level.Trial)
  public void startPostgres() throws Exception {
    postgres =
        EmbeddedPostgres.builder()
            .setServerConfig("max_wal_size", "4GB")
            .setServerConfig("shared_buffers", "512MB")
            .start();
    dataSource = postgres.getPostgresDatabase();
    records = makeRecords();
    Namespace ns = new Namespace("bench", "docs");
    adminConnection = dataSource.getConnection();
    try (Statement st = adminConnection.createStatement()) {
      st.execute("create schema " + SCHEMA);
      st.execute(
          "create table bench.plain (\"_id\" text, \"doc\" jsonb, \"_position\" text,"
              + " \"_commit_time\" timestamptz)");
    }
    mirrorTable = PostgresDestination.setUp(adminConnection, SCHEMA, List.of(ns)).get(0);
    sink =
        PostgresRecordSink.builder(dataSource, PostgresSinkOptions.defaults().withSchema(SCHEMA), List.of(mirrorTable))
            .open();
    copyConnection = dataSource.getConnection();
    copyConnection.setAutoCommit(false);
  }

  static List<ChangeRecord> makeRecords() {
    return makeRecords(new Namespace("bench", "docs"), 1_767_225_600L);
  }

  /** 100 000 inserts of ~1 KB documents; positions start at cluster time {@code seconds}. */
  static List<ChangeRecord> makeRecords(Namespace ns, long seconds) {
    String table = TableNaming.tableName(ns);
    Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
    List<ChangeRecord> list = new ArrayList<>(ROWS);
    for (int i = 0; i < ROWS; i++) {
      String id = String.format("\"%024x\"", 0x5f00_0000_0000L + i);
      StringBuilder doc = new StringBuilder(1100);
      doc.append("{\"_id\": {\"$oid\": ").append(id).append("}, \"n\": ").append(i)
          .append(", \"name\": \"customer ").append(i).append("\", \"active\": ")
          .append(i % 3 == 0).append(", \"created\": {\"$date\": \"2026-01-01T00:00:00Z\"}")
          .append(", \"tags\": [\"a\", \"b\", \"c\"], \"address\": {\"street\": \"")
          .append(i).append(" Main Street\", \"city\": \"Springfield\", \"zip\": \"")
          .append(10000 + i % 90000).append("\"}, \"notes\": \"");
      while (doc.length() < 1000) {
        doc.append("lorem ipsum dolor sit amet ");
      }
      doc.append("\"}");
      ResumeToken token =
          ResumeToken.of(String.format("82%08X%08X2B022C0100296E5A1004", seconds + i / 1000, i % 1000 + 1)
              + "0123456789ABCDEF0123456789ABCDEF463C5F6964003C" + id.substring(1, 25).toUpperCase() + "000004");
      list.add(
          ChangeRecord.builder().operation(Operation.INSERT).source(ns).table(table).key(id).document(doc.toString())
              .position(token).commitTime(t0.plusMillis(i)).sourceBytes(doc.length() + 200).build());
    }
    return list;
  }

  @Setup(Level.Invocation)
  public void emptyTables() throws Exception {
    try (Statement st = adminConnection.createStatement()) {
      st.execute("truncate bench.plain");
      st.execute("truncate " + mirrorTable.qualifiedName());
    }
  }

  @TearDown(Level.Trial)
  public void stopPostgres() throws Exception {
    sink.close();
    copyConnection.close();
    adminConnection.close();
    postgres.close();
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long plainCopy() throws Exception {
    return copyInto("bench.plain");
  }

  /** Copies {@link #records} into {@code table} with one binary COPY, in one transaction. */
  long copyInto(String table) throws Exception {
    PGConnection pg = copyConnection.unwrap(PGConnection.class);
    CopyIn copy =
        pg.getCopyAPI()
            .copyIn(
                "copy " + table + " (\"_id\", \"doc\", \"_position\", \"_commit_time\")"
                    + " from stdin (format binary)");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(CHUNK * 1400);
    DataOutputStream out = new DataOutputStream(bytes);
    out.write(new byte[] {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0});
    out.writeInt(0);
    out.writeInt(0);
    int inChunk = 0;
    for (ChangeRecord r : records) {
      out.writeShort(4);
      text(out, r.key());
      byte[] doc = r.document().getBytes(StandardCharsets.UTF_8);
      out.writeInt(doc.length + 1);
      out.writeByte(1); // jsonb binary format version
      out.write(doc);
      text(out, r.position().data());
      out.writeInt(8);
      out.writeLong(
          r.commitTime().getEpochSecond() * 1_000_000L
              + r.commitTime().getNano() / 1000
              - 946_684_800_000_000L);
      if (++inChunk == CHUNK) {
        copy.writeToCopy(bytes.toByteArray(), 0, bytes.size());
        bytes.reset();
        inChunk = 0;
      }
    }
    out.writeShort(-1);
    copy.writeToCopy(bytes.toByteArray(), 0, bytes.size());
    long rows = copy.endCopy();
    copyConnection.commit();
    return rows;
  }

  private static void text(DataOutputStream out, String value) throws IOException {
    byte[] b = value.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long apply() throws Exception {
    for (int from = 0; from < ROWS; from += CHUNK) {
      sink.write(records.subList(from, Math.min(ROWS, from + CHUNK)));
    }
    sink.commit();
    return sink.lastCommit().rowsChanged();
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long applyUpdates(ExistingRows existing) throws Exception {
    return existing.applyInParallel(existing.updates);
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long applyMix(ExistingRows existing) throws Exception {
    return existing.applyInParallel(existing.mix);
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long applyTyped(TypedRows typed) throws Exception {
    return typed.apply();
  }

  /** A table with or without five typed columns, its records' raw documents, and older rows to update. */
  @State(Scope.Benchmark)
  public static class TypedRows {
    @Param({"doc", "five"})
    String columns;

    @Param({"insert", "update"})
    String mode;

    DestinationTable table;
    PostgresRecordSink sink;
    DocumentProjector projector;
    List<ChangeRecord> records;
    List<RawBsonDocument> raws = new ArrayList<>();
    Connection admin;

    @Setup(Level.Trial)
    public void create(DestinationBenchmark bench) throws Exception {
      Namespace ns = new Namespace("bench", "typed");
      admin = bench.adminConnection;
      projector = columns.equals("five") ? new DocumentProjector(List.of(
          new ColumnProjection("n", ColumnType.BIGINT, List.of("n")),
          new ColumnProjection("name", ColumnType.TEXT, List.of("name")),
          new ColumnProjection("active", ColumnType.BOOLEAN, List.of("active")),
          new ColumnProjection("created", ColumnType.TIMESTAMPTZ, List.of("created")),
          new ColumnProjection("zip", ColumnType.TEXT, List.of("address", "zip"))), TranscodingJsonRenderer.relaxed())
          : null;
      ColumnProjections projections = ns2 -> projector;
      table = PostgresDestination.setUp(admin, SCHEMA, List.of(ns)).get(0);
      sink = PostgresRecordSink.builder(bench.dataSource, PostgresSinkOptions.defaults().withSchema(SCHEMA),
          List.of(table)).projections(projections).open();
      List<ChangeRecord> older = makeRecords(ns, 1_767_225_600L);
      for (ChangeRecord r : older) {
        raws.add(RawBsonDocument.parse(r.document()));
      }
      records = mode.equals("insert") ? older : makeRecords(ns, 1_800_000_000L);
      if (mode.equals("update")) {
        for (int from = 0; from < ROWS; from += CHUNK) {
          sink.write(withTyped(older, from));
        }
        sink.commit();
        try (Statement st = admin.createStatement()) {
          st.execute("create table bench.typed_base as select * from " + table.qualifiedName());
        }
      }
    }

    @Setup(Level.Invocation)
    public void reset() throws Exception {
      try (Statement st = admin.createStatement()) {
        st.execute("truncate " + table.qualifiedName());
        if (mode.equals("update")) {
          st.execute("insert into " + table.qualifiedName() + " select * from bench.typed_base");
          st.execute("analyze " + table.qualifiedName());
        }
      }
    }

    @TearDown(Level.Trial)
    public void close() {
      sink.close();
    }

    /** The records as the decode pool makes them: with the typed values extracted from the raw document. */
    List<ChangeRecord> withTyped(List<ChangeRecord> all, int from) {
      List<ChangeRecord> chunk = all.subList(from, Math.min(ROWS, from + CHUNK));
      List<ChangeRecord> typed = new ArrayList<>(chunk.size());
      for (int i = 0; i < chunk.size(); i++) {
        ChangeRecord r = chunk.get(i);
        RawBsonDocument raw = raws.get(from + i);
        typed.add(r.toBuilder().typed(projector == null ? null : projector.project(raw)).build());
      }
      return typed;
    }

    long apply() throws Exception {
      for (int from = 0; from < ROWS; from += CHUNK) {
        sink.write(withTyped(records, from));
      }
      sink.commit();
      return sink.lastCommit().rowsChanged();
    }
  }

  /** A mirror table whose 100 000 rows exist at older positions before each invocation. */
  @State(Scope.Benchmark)
  public static class ExistingRows {
    @Param({"1", "2"})
    int lanes;

    /** on: every record is also appended to the table's history table (issue 21), emptied before each invocation. */
    @Param({"off", "on"})
    String history;

    DestinationTable table;
    DestinationTable historyTable;
    List<PostgresRecordSink> sinks = new ArrayList<>();
    ExecutorService threads;
    List<List<ChangeRecord>> updates;
    List<List<ChangeRecord>> mix;

    @Setup(Level.Trial)
    public void create(DestinationBenchmark bench) throws Exception {
      Namespace ns = new Namespace("bench", "existing");
      java.util.function.Predicate<Namespace> keepsHistory = history.equals("on") ? ns::equals : n -> false;
      List<DestinationTable> tables = PostgresDestination.setUp(bench.adminConnection, SCHEMA, List.of(ns), keepsHistory);
      table = tables.get(0);
      historyTable = tables.size() > 1 ? tables.get(1) : null;
      for (int i = 0; i < lanes; i++) {
        sinks.add(PostgresRecordSink.builder(bench.dataSource, PostgresSinkOptions.defaults().withSchema(SCHEMA),
            List.of(table)).keepsHistory(keepsHistory).open());
      }
      threads = Executors.newFixedThreadPool(lanes);
      List<ChangeRecord> older = makeRecords(ns, 1_767_225_600L);
      PostgresRecordSink loader = sinks.get(0);
      for (int from = 0; from < ROWS; from += CHUNK) {
        loader.write(older.subList(from, Math.min(ROWS, from + CHUNK)));
      }
      loader.commit();
      try (Statement st = bench.adminConnection.createStatement()) {
        st.execute("create table bench.existing_base as select * from " + table.qualifiedName());
        if (historyTable != null) {
          st.execute("truncate " + historyTable.qualifiedName());
        }
      }
      updates = byLane(makeRecords(ns, 1_800_000_000L));
      mix = byLane(makeMix(ns, older));
    }

    /** 60 % updates, 15 % inserts of new keys, 10 % deletes, 15 % repeated keys of the batch. */
    static List<ChangeRecord> makeMix(Namespace ns, List<ChangeRecord> existing) {
      List<ChangeRecord> newer = makeRecords(ns, 1_800_000_000L);
      Random random = new Random(7);
      List<ChangeRecord> batch = new ArrayList<>(ROWS);
      for (int i = 0; i < ROWS; i++) {
        ChangeRecord at = newer.get(i); // its position orders the batch
        int dice = random.nextInt(100);
        ChangeRecord template;
        Operation op;
        if (dice < 60) {
          template = existing.get(random.nextInt(ROWS));
          op = Operation.UPDATE;
        } else if (dice < 75) {
          template = newer.get(i);
          op = Operation.INSERT;
        } else if (dice < 85) {
          template = existing.get(random.nextInt(ROWS));
          op = Operation.DELETE;
        } else {
          template = i == 0 ? existing.get(0) : batch.get(random.nextInt(i));
          op = Operation.UPDATE;
        }
        // keys of the existing rows are "5f..."; a new key differs in its first digit
        String key = op == Operation.INSERT ? "\"6" + template.key().substring(2) : template.key();
        batch.add(ChangeRecord.builder().operation(op).source(ns).table(at.table()).key(key)
            .document(op == Operation.DELETE ? null : template.document()).position(at.position())
            .commitTime(at.commitTime()).sourceBytes(at.sourceBytes()).build());
      }
      return batch;
    }

    private List<List<ChangeRecord>> byLane(List<ChangeRecord> records) {
      List<List<ChangeRecord>> parts = new ArrayList<>();
      for (int i = 0; i < lanes; i++) {
        parts.add(new ArrayList<>());
      }
      for (ChangeRecord record : records) {
        parts.get(ApplyRouting.laneOf(record, lanes)).add(record);
      }
      return parts;
    }

    /** Each lane writes its records in chunks and commits, all lanes at once; the total changed. */
    long applyInParallel(List<List<ChangeRecord>> parts) throws Exception {
      List<Future<Long>> done = new ArrayList<>();
      for (int i = 0; i < lanes; i++) {
        PostgresRecordSink sink = sinks.get(i);
        List<ChangeRecord> records = parts.get(i);
        done.add(threads.submit(() -> {
          for (int from = 0; from < records.size(); from += CHUNK) {
            sink.write(records.subList(from, Math.min(records.size(), from + CHUNK)));
          }
          sink.commit();
          return sink.lastCommit().rowsChanged();
        }));
      }
      long changed = 0;
      for (Future<Long> lane : done) {
        changed += lane.get();
      }
      return changed;
    }

    @Setup(Level.Invocation)
    public void restoreOlderRows(DestinationBenchmark bench) throws Exception {
      try (Statement st = bench.adminConnection.createStatement()) {
        st.execute("truncate " + table.qualifiedName());
        st.execute("insert into " + table.qualifiedName() + " select * from bench.existing_base");
        st.execute("vacuum analyze " + table.qualifiedName());
        if (historyTable != null) {
          st.execute("truncate " + historyTable.qualifiedName());
        }
      }
    }

    @TearDown(Level.Trial)
    public void close(DestinationBenchmark bench) throws Exception {
      threads.shutdownNow();
      sinks.forEach(PostgresRecordSink::close);
      try (Statement st = bench.adminConnection.createStatement()) {
        st.execute("drop table bench.existing_base");
        st.execute("drop table " + table.qualifiedName());
        if (historyTable != null) {
          st.execute("drop table " + historyTable.qualifiedName());
        }
      }
    }
  }
}
