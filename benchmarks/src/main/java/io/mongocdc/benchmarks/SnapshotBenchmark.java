package io.mongocdc.benchmarks;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.ColumnProjections;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.destination.DestinationTable;
import io.mongocdc.destination.LockYieldingSink;
import io.mongocdc.destination.PostgresDestination;
import io.mongocdc.destination.PostgresRecordSink;
import io.mongocdc.destination.PostgresSinkOptions;
import io.mongocdc.pipeline.PoisonEvents;
import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.PartitionPlanner;
import io.mongocdc.snapshot.SnapshotCopier;
import io.mongocdc.snapshot.SnapshotPosition;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.devtools.generator.InMemorySnapshotSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonObjectId;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.RawBsonDocument;
import org.bson.types.ObjectId;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The snapshot's apply rate against plain COPY of the same rows, on an embedded PostgreSQL
 * started per trial, in one thread each.
 *
 * <ul>
 *   <li>{@code plainCopy}: the 100 000 rows the snapshot produces (key text, jsonb document,
 *       position, commit time), rendered beforehand, copied with one binary COPY into an
 *       unindexed table: the floor ({@link DestinationBenchmark#plainCopy} does the COPY).
 *   <li>{@code snapshot}: the snapshot as a {@code CopySnapshotPartition} activity does it, for
 *       every partition the planner makes of the collection (25 000 documents each): read the
 *       raw BSON documents of the partition from the (in-memory) source, render each document and
 *       its {@code _id} key, and apply them through the copy's sink ({@link LockYieldingSink} over
 *       {@link PostgresRecordSink}) into the mirror table with its primary key, one transaction per
 *       chunk of {@value #CHUNK}.
 * </ul>
 *
 * Scores are rows per second. Both target tables are emptied before each invocation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 10)
@Measurement(iterations = 3, time = 10)
public class SnapshotBenchmark {

  static final int ROWS = 100_000;
  static final int DOCUMENTS_PER_PARTITION = 25_000;
  static final int CHUNK = 256;
  static final String SCHEMA = "snap";
  static final Namespace NS = new Namespace("snap", "customers");

  EmbeddedPostgres postgres;
  DataSource dataSource;
  Connection adminConnection;
  InMemorySnapshotSource source;
  List<IdRange> partitions;
  DestinationTable mirrorTable;
  RecordSink sink;
  List<ChangeRecord> rendered;
  DestinationBenchmark copier;
  final SnapshotCopier snapshotCopier = new SnapshotCopier(TranscodingJsonRenderer.relaxed(), new IdKeyRenderer(), CHUNK, PoisonEvents.NONE, ColumnProjections.NONE);
  final StreamPosition start = StreamPosition.atOperationTime(new BsonTimestamp(1_767_225_600, 1));
  final ResumeToken position = SnapshotPosition.tokenOf(start);
  final Instant commitTime = SnapshotPosition.commitTimeOf(start);

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    postgres = EmbeddedPostgres.builder()
        .setServerConfig("max_wal_size", "4GB")
        .setServerConfig("shared_buffers", "512MB")
        .start();
    dataSource = postgres.getPostgresDatabase();
    adminConnection = dataSource.getConnection();
    try (Statement st = adminConnection.createStatement()) {
      st.execute("create schema " + SCHEMA);
      st.execute("create table snap.plain (\"_id\" text, \"doc\" jsonb, \"_position\" text, \"_commit_time\" timestamptz)");
    }
    mirrorTable = PostgresDestination.setUp(adminConnection, SCHEMA, List.of(NS)).get(0);
    // The copy's sink, as MirrorDestination.openCopySink opens it: a transaction per chunk, each
    // with the copy's lock timeout.
    sink = LockYieldingSink.of(
        PostgresRecordSink.builder(dataSource, PostgresSinkOptions.defaults().withSchema(SCHEMA), List.of(mirrorTable)),
        "the copy", true);

    source = new InMemorySnapshotSource(1);
    source.createCollection(NS.collection());
    for (int i = 0; i < ROWS; i++) {
      source.put(NS.collection(), document(i));
    }
    long count = source.estimatedCount(NS.collection());
    partitions = PartitionPlanner.plan(count,
        source.sampleIds(NS.collection(), PartitionPlanner.sampleSizeFor(count, DOCUMENTS_PER_PARTITION)),
        DOCUMENTS_PER_PARTITION);

    // The baseline copies exactly the rows the snapshot writes.
    rendered = new ArrayList<>(ROWS);
    TranscodingJsonRenderer json = TranscodingJsonRenderer.relaxed();
    IdKeyRenderer keys = new IdKeyRenderer();
    for (RawBsonDocument doc : source.documents(NS.collection())) {
      rendered.add(ChangeRecord.builder().operation(io.mongocdc.decode.Operation.INSERT).source(NS)
          .table(mirrorTable.name()).key(keys.renderIdOf(doc)).document(json.render(doc)).position(position)
          .commitTime(commitTime).sourceBytes(doc.getByteBuffer().remaining()).build());
    }
    copier = new DestinationBenchmark();
    copier.records = rendered;
    copier.copyConnection = dataSource.getConnection();
    copier.copyConnection.setAutoCommit(false);
  }

  /** A customer of about 1 KB with an ObjectId key, like {@link DestinationBenchmark}'s rows. */
  static BsonDocument document(int i) {
    StringBuilder notes = new StringBuilder();
    while (notes.length() < 700) {
      notes.append("lorem ipsum dolor sit amet ");
    }
    return new BsonDocument("_id", new BsonObjectId(new ObjectId(1_700_000_000 + i / 100, i)))
        .append("n", new BsonInt32(i))
        .append("name", new BsonString("customer " + i))
        .append("created", new BsonDateTime(1_767_225_600_000L + i))
        .append("address", new BsonDocument("street", new BsonString(i + " Main Street"))
            .append("city", new BsonString("Springfield")))
        .append("notes", new BsonString(notes.toString()));
  }

  @Setup(Level.Invocation)
  public void emptyTables() throws Exception {
    try (Statement st = adminConnection.createStatement()) {
      st.execute("truncate snap.plain");
      st.execute("truncate " + mirrorTable.qualifiedName());
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    sink.close();
    copier.copyConnection.close();
    adminConnection.close();
    postgres.close();
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long plainCopy() throws Exception {
    return copier.copyInto("snap.plain");
  }

  @Benchmark
  @OperationsPerInvocation(ROWS)
  public long snapshot() throws Exception {
    long documents = 0;
    for (IdRange partition : partitions) {
      try (DocumentCursor cursor = source.open(NS.collection(), partition, new BsonDocument(), 1_000)) {
        documents += snapshotCopier.copy(cursor, NS, mirrorTable.name(), position, commitTime, sink, (d, b) -> {})
            .documents();
      }
    }
    if (documents != ROWS) {
      throw new IllegalStateException("the snapshot copied " + documents + " documents, not " + ROWS);
    }
    return documents;
  }
}
