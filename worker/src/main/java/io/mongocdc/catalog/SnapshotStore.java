package io.mongocdc.catalog;

import static io.mongocdc.catalog.jooq.Tables.SNAPSHOT_COLLECTIONS;
import static io.mongocdc.catalog.jooq.Tables.SNAPSHOT_PARTITIONS;

import io.mongocdc.catalog.jooq.tables.records.SnapshotCollectionsRecord;
import io.mongocdc.catalog.jooq.tables.records.SnapshotPartitionsRecord;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * Snapshot plans and partition progress ({@code snapshot_collections}, {@code
 * snapshot_partitions}).
 */
public final class SnapshotStore {

  private static final String DONE = "done";
  private static final String PENDING = "pending";
  private static final String COPYING = "copying";

  /**
   * Where a snapshot started: a resume token (null for an operation time) and the cluster time
   * as a BSON timestamp value (seconds in the high 32 bits, increment in the low).
   */
  public record Start(String resumeToken, long clusterTime) {}

  /** A collection's plan: its start, partition count, every partition row and the source's estimated count. */
  public record Plan(Start start, int partitionsTotal, List<SnapshotPartitionsRecord> partitions,
      long estimatedDocuments) {}

  private final DSLContext dsl;

  public SnapshotStore(DSLContext dsl) {
    this.dsl = Objects.requireNonNull(dsl, "dsl");
  }

  public Optional<Plan> load(String mirror, String collection) {
    SnapshotCollectionsRecord row = dsl.selectFrom(SNAPSHOT_COLLECTIONS)
        .where(SNAPSHOT_COLLECTIONS.MIRROR_NAME.eq(mirror), SNAPSHOT_COLLECTIONS.COLLECTION.eq(collection))
        .fetchOne();
    if (row == null) {
      return Optional.empty();
    }
    List<SnapshotPartitionsRecord> partitions = dsl.selectFrom(SNAPSHOT_PARTITIONS)
        .where(SNAPSHOT_PARTITIONS.MIRROR_NAME.eq(mirror), SNAPSHOT_PARTITIONS.COLLECTION.eq(collection))
        .orderBy(SNAPSHOT_PARTITIONS.PARTITION_NO)
        .fetch();
    return Optional.of(new Plan(new Start(row.getStartResumeToken(), row.getStartClusterTime()),
        row.getPartitionsTotal(), partitions, row.getEstimatedDocuments()));
  }

  /** Replaces the collection's plan, in one transaction. */
  public void store(String mirror, String collection, Start start, String filter, long estimatedDocuments,
      List<String> idRanges) {
    if (idRanges.isEmpty()) {
      throw new IllegalArgumentException("a snapshot plan needs at least one partition");
    }
    dsl.transaction(configuration -> {
      DSLContext tx = configuration.dsl();
      tx.deleteFrom(SNAPSHOT_COLLECTIONS)
          .where(SNAPSHOT_COLLECTIONS.MIRROR_NAME.eq(mirror), SNAPSHOT_COLLECTIONS.COLLECTION.eq(collection))
          .execute();
      tx.insertInto(SNAPSHOT_COLLECTIONS)
          .set(SNAPSHOT_COLLECTIONS.MIRROR_NAME, mirror)
          .set(SNAPSHOT_COLLECTIONS.COLLECTION, collection)
          .set(SNAPSHOT_COLLECTIONS.START_RESUME_TOKEN, start.resumeToken())
          .set(SNAPSHOT_COLLECTIONS.START_CLUSTER_TIME, start.clusterTime())
          .set(SNAPSHOT_COLLECTIONS.FILTER, filter)
          .set(SNAPSHOT_COLLECTIONS.ESTIMATED_DOCUMENTS, estimatedDocuments)
          .set(SNAPSHOT_COLLECTIONS.PARTITIONS_TOTAL, idRanges.size())
          .set(SNAPSHOT_COLLECTIONS.STATE, COPYING)
          .execute();
      List<SnapshotPartitionsRecord> rows = new ArrayList<>(idRanges.size());
      for (int i = 0; i < idRanges.size(); i++) {
        SnapshotPartitionsRecord row = tx.newRecord(SNAPSHOT_PARTITIONS);
        row.setMirrorName(mirror);
        row.setCollection(collection);
        row.setPartitionNo(i);
        row.setIdRange(idRanges.get(i));
        row.setState(PENDING);
        rows.add(row);
      }
      tx.batchInsert(rows).execute();
    });
  }

  /** When each of the mirror's collections whose copy is done finished it. */
  public Map<String, Instant> finished(String mirror) {
    Map<String, Instant> finished = new LinkedHashMap<>();
    dsl.select(SNAPSHOT_COLLECTIONS.COLLECTION, SNAPSHOT_COLLECTIONS.FINISHED_AT)
        .from(SNAPSHOT_COLLECTIONS)
        .where(SNAPSHOT_COLLECTIONS.MIRROR_NAME.eq(mirror), SNAPSHOT_COLLECTIONS.STATE.eq(DONE),
            SNAPSHOT_COLLECTIONS.FINISHED_AT.isNotNull())
        .orderBy(SNAPSHOT_COLLECTIONS.COLLECTION)
        .forEach(row -> finished.put(row.value1(), row.value2().toInstant()));
    return finished;
  }

  public Optional<SnapshotPartitionsRecord> partition(String mirror, String collection, int partition) {
    return dsl.selectFrom(SNAPSHOT_PARTITIONS)
        .where(SNAPSHOT_PARTITIONS.MIRROR_NAME.eq(mirror), SNAPSHOT_PARTITIONS.COLLECTION.eq(collection),
            SNAPSHOT_PARTITIONS.PARTITION_NO.eq(partition))
        .fetchOptional();
  }

  public void started(String mirror, String collection, int partition) {
    dsl.update(SNAPSHOT_PARTITIONS)
        .set(SNAPSHOT_PARTITIONS.ATTEMPTS, SNAPSHOT_PARTITIONS.ATTEMPTS.plus(1))
        .set(SNAPSHOT_PARTITIONS.STARTED_AT, DSL.currentOffsetDateTime())
        .where(SNAPSHOT_PARTITIONS.MIRROR_NAME.eq(mirror), SNAPSHOT_PARTITIONS.COLLECTION.eq(collection),
            SNAPSHOT_PARTITIONS.PARTITION_NO.eq(partition), SNAPSHOT_PARTITIONS.STATE.eq(PENDING))
        .execute();
  }

  /**
   * Marks the partition done (once), and the collection done when no partition is pending. The
   * collection's row is locked first: two last partitions finishing at once would otherwise each
   * see the other still pending (neither committed yet) and leave the collection copying.
   */
  public void done(String mirror, String collection, int partition, long documents, long bytes) {
    done(mirror, collection, partition, documents, bytes, Map.of());
  }

  /** Also adds the partition's typed column drift to the mirror's counters, the first time it is done. */
  public void done(String mirror, String collection, int partition, long documents, long bytes,
      Map<String, Map<String, Long>> drift) {
    dsl.transaction(configuration -> {
      DSLContext tx = configuration.dsl();
      tx.selectOne().from(SNAPSHOT_COLLECTIONS)
          .where(SNAPSHOT_COLLECTIONS.MIRROR_NAME.eq(mirror), SNAPSHOT_COLLECTIONS.COLLECTION.eq(collection))
          .forUpdate()
          .fetch();
      if (tx.update(SNAPSHOT_PARTITIONS)
          .set(SNAPSHOT_PARTITIONS.STATE, DONE)
          .set(SNAPSHOT_PARTITIONS.DOCUMENTS, documents)
          .set(SNAPSHOT_PARTITIONS.BYTES, bytes)
          .set(SNAPSHOT_PARTITIONS.FINISHED_AT, DSL.currentOffsetDateTime())
          .where(SNAPSHOT_PARTITIONS.MIRROR_NAME.eq(mirror), SNAPSHOT_PARTITIONS.COLLECTION.eq(collection),
              SNAPSHOT_PARTITIONS.PARTITION_NO.eq(partition), SNAPSHOT_PARTITIONS.STATE.eq(PENDING))
          .execute() > 0) {
        ColumnDriftStore.add(tx, mirror, drift);
      }
      tx.update(SNAPSHOT_COLLECTIONS)
          .set(SNAPSHOT_COLLECTIONS.STATE, DONE)
          .set(SNAPSHOT_COLLECTIONS.FINISHED_AT, DSL.currentOffsetDateTime())
          .where(SNAPSHOT_COLLECTIONS.MIRROR_NAME.eq(mirror), SNAPSHOT_COLLECTIONS.COLLECTION.eq(collection),
              SNAPSHOT_COLLECTIONS.STATE.eq(COPYING))
          .andNotExists(DSL.selectOne().from(SNAPSHOT_PARTITIONS)
              .where(SNAPSHOT_PARTITIONS.MIRROR_NAME.eq(mirror), SNAPSHOT_PARTITIONS.COLLECTION.eq(collection),
                  SNAPSHOT_PARTITIONS.STATE.eq(PENDING)))
          .execute();
    });
  }

  static boolean isDone(SnapshotPartitionsRecord row) {
    return DONE.equals(row.getState());
  }
}
