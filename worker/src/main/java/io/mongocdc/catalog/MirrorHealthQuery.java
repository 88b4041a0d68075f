package io.mongocdc.catalog;

import static io.mongocdc.catalog.jooq.Tables.CHECKPOINTS;
import static io.mongocdc.catalog.jooq.Tables.MIRRORS;
import static io.mongocdc.catalog.jooq.Tables.QUARANTINED_EVENTS;
import static io.mongocdc.catalog.jooq.Tables.SNAPSHOT_COLLECTIONS;
import static io.mongocdc.catalog.jooq.Tables.SNAPSHOT_PARTITIONS;
import static io.mongocdc.catalog.jooq.Tables.VERIFY_RANGES;
import static io.mongocdc.catalog.jooq.Tables.VERIFY_RUNS;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.max;

import io.mongocdc.ports.MirrorHealth;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.SnapshotProgress;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.impl.DSL;

/** Every mirror's {@link MirrorHealth}, read from the catalog in four queries, changing nothing. */
final class MirrorHealthQuery {

  /** Differences a range confirmed: missing, extra and different rows (not the unsettled, which a paused mirror leaves). */
  private static final Field<Long> FOUND = VERIFY_RANGES.MISSING.plus(VERIFY_RANGES.EXTRA).plus(VERIFY_RANGES.DIFFERENT);

  private final DSLContext dsl;

  MirrorHealthQuery(DSLContext dsl) {
    this.dsl = dsl;
  }

  List<MirrorHealth> all() {
    Map<String, Integer> quarantined = dsl.select(QUARANTINED_EVENTS.MIRROR_NAME, count())
        .from(QUARANTINED_EVENTS)
        .where(QUARANTINED_EVENTS.REPLAYED_AT.isNull())
        .groupBy(QUARANTINED_EVENTS.MIRROR_NAME)
        .fetchMap(QUARANTINED_EVENTS.MIRROR_NAME, count());
    Map<String, Long> differences = verifyDifferences();
    Map<String, List<SnapshotProgress>> snapshots = snapshots();
    List<MirrorHealth> health = new ArrayList<>();
    for (Record row : dsl.select(MIRRORS.NAME, MIRRORS.STATUS, MIRRORS.STATUS_CHANGED_AT, MIRRORS.OPLOG_OLDEST_SECONDS,
            MIRRORS.OPLOG_OBSERVED_AT, CHECKPOINTS.COMMITTED_AT, CHECKPOINTS.CLUSTER_TIME_AT)
        .from(MIRRORS)
        .leftJoin(CHECKPOINTS).on(CHECKPOINTS.MIRROR_NAME.eq(MIRRORS.NAME))
        .orderBy(MIRRORS.NAME)
        .fetch()) {
      String name = row.get(MIRRORS.NAME);
      OffsetDateTime clusterTime = row.get(CHECKPOINTS.CLUSTER_TIME_AT);
      List<SnapshotProgress> copies = snapshots.getOrDefault(name, List.of());
      health.add(new MirrorHealth(name, Catalog.phaseOf(row.get(MIRRORS.STATUS)), instant(row.get(MIRRORS.STATUS_CHANGED_AT)),
          instant(row.get(CHECKPOINTS.COMMITTED_AT)),
          clusterTime == null ? copyStartSeconds(copies) : Long.valueOf(clusterTime.toEpochSecond()),
          row.get(MIRRORS.OPLOG_OLDEST_SECONDS), instant(row.get(MIRRORS.OPLOG_OBSERVED_AT)),
          quarantined.getOrDefault(name, 0), differences.get(name), copies));
    }
    return health;
  }

  /** Per mirror, what its last finished verify run confirmed and did not repair. */
  private Map<String, Long> verifyDifferences() {
    var lastRun = dsl.select(max(VERIFY_RUNS.RUN_ID))
        .from(VERIFY_RUNS)
        .where(VERIFY_RUNS.STATE.eq("done"))
        .groupBy(VERIFY_RUNS.MIRROR_NAME);
    Field<BigDecimal> found = DSL.coalesce(DSL.sum(FOUND), BigDecimal.ZERO);
    Field<BigDecimal> repaired = DSL.coalesce(DSL.sum(VERIFY_RANGES.REPAIRED), BigDecimal.ZERO);
    Map<String, Long> differences = new HashMap<>();
    dsl.select(VERIFY_RUNS.MIRROR_NAME, found, repaired)
        .from(VERIFY_RUNS)
        .leftJoin(VERIFY_RANGES).on(VERIFY_RANGES.RUN_ID.eq(VERIFY_RUNS.RUN_ID))
        .where(VERIFY_RUNS.RUN_ID.in(lastRun))
        .groupBy(VERIFY_RUNS.MIRROR_NAME)
        .forEach(row -> differences.put(row.value1(),
            Math.max(0, row.value2().longValue() - row.value3().longValue())));
    return differences;
  }

  /**
   * Per mirror, every collection's snapshot as the catalog records it: the plan's figures with its
   * partitions done and their documents, when it was planned and finished, and the cluster time it
   * started at (as an operation time: the figures need no token).
   */
  private Map<String, List<SnapshotProgress>> snapshots() {
    Field<Integer> done = DSL.count().filterWhere(SNAPSHOT_PARTITIONS.STATE.eq("done"));
    Field<BigDecimal> copied = DSL.coalesce(
        DSL.sum(SNAPSHOT_PARTITIONS.DOCUMENTS).filterWhere(SNAPSHOT_PARTITIONS.STATE.eq("done")), BigDecimal.ZERO);
    Map<String, List<SnapshotProgress>> snapshots = new HashMap<>();
    for (Record row : dsl.select(SNAPSHOT_COLLECTIONS.MIRROR_NAME, SNAPSHOT_COLLECTIONS.COLLECTION,
            SNAPSHOT_COLLECTIONS.STATE, SNAPSHOT_COLLECTIONS.PARTITIONS_TOTAL, SNAPSHOT_COLLECTIONS.ESTIMATED_DOCUMENTS,
            SNAPSHOT_COLLECTIONS.PLANNED_AT, SNAPSHOT_COLLECTIONS.FINISHED_AT, SNAPSHOT_COLLECTIONS.START_CLUSTER_TIME,
            done, copied)
        .from(SNAPSHOT_COLLECTIONS)
        .leftJoin(SNAPSHOT_PARTITIONS).on(SNAPSHOT_PARTITIONS.MIRROR_NAME.eq(SNAPSHOT_COLLECTIONS.MIRROR_NAME),
            SNAPSHOT_PARTITIONS.COLLECTION.eq(SNAPSHOT_COLLECTIONS.COLLECTION))
        .groupBy(SNAPSHOT_COLLECTIONS.MIRROR_NAME, SNAPSHOT_COLLECTIONS.COLLECTION)
        .orderBy(SNAPSHOT_COLLECTIONS.MIRROR_NAME, SNAPSHOT_COLLECTIONS.COLLECTION)
        .fetch()) {
      boolean finished = "done".equals(row.get(SNAPSHOT_COLLECTIONS.STATE));
      snapshots.computeIfAbsent(row.get(SNAPSHOT_COLLECTIONS.MIRROR_NAME), mirror -> new ArrayList<>())
          .add(new SnapshotProgress(row.get(SNAPSHOT_COLLECTIONS.COLLECTION),
              start(row.get(SNAPSHOT_COLLECTIONS.START_CLUSTER_TIME)),
              finished ? SnapshotProgress.State.DONE : SnapshotProgress.State.COPYING,
              row.get(SNAPSHOT_COLLECTIONS.PARTITIONS_TOTAL), row.get(done), row.get(copied).longValue(),
              row.get(SNAPSHOT_COLLECTIONS.ESTIMATED_DOCUMENTS), millis(row.get(SNAPSHOT_COLLECTIONS.PLANNED_AT)),
              millis(row.get(SNAPSHOT_COLLECTIONS.FINISHED_AT))));
    }
    return snapshots;
  }

  /**
   * Before the first commit, where the stream will start: the start of the copy under way (a first
   * snapshot starts at the mirror's starting point); null when none runs.
   */
  private static Long copyStartSeconds(List<SnapshotProgress> copies) {
    return copies.stream().filter(copy -> !copy.done()).map(copy -> copy.position().clusterTimeSeconds())
        .min(Long::compare).orElse(null);
  }

  /** A BSON timestamp's 64-bit value (seconds in the high 32 bits) as a checkpoint at that time. */
  private static Checkpoint start(long clusterTime) {
    return Checkpoint.atOperationTime(clusterTime >>> 32, (int) clusterTime);
  }

  private static Long millis(OffsetDateTime time) {
    return time == null ? null : time.toInstant().toEpochMilli();
  }

  private static Instant instant(OffsetDateTime time) {
    return time == null ? null : time.toInstant();
  }
}
