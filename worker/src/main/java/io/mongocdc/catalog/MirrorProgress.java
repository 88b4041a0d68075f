package io.mongocdc.catalog;

import static io.mongocdc.catalog.jooq.Tables.BATCHES;
import static io.mongocdc.catalog.jooq.Tables.CHECKPOINTS;
import static io.mongocdc.catalog.jooq.Tables.MIRRORS;
import static io.mongocdc.catalog.jooq.Tables.QUARANTINED_EVENTS;
import static io.mongocdc.catalog.jooq.Tables.SNAPSHOT_COLLECTIONS;
import static io.mongocdc.catalog.jooq.Tables.SNAPSHOT_PARTITIONS;
import static org.jooq.impl.DSL.coalesce;
import static org.jooq.impl.DSL.count;
import static org.jooq.impl.DSL.max;
import static org.jooq.impl.DSL.min;
import static org.jooq.impl.DSL.percentileCont;
import static org.jooq.impl.DSL.sum;

import io.mongocdc.workflows.model.MirrorPhase;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record7;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * A mirror's progress as the catalog records it, read without changing anything: what
 * {@code mongo-cdc dev} shows while it runs and reports at the end.
 */
public final class MirrorProgress {

  /** A batch's duration in seconds, as PostgreSQL computes it from the two timestamps. */
  private static final Field<Double> BATCH_SECONDS =
      DSL.field("extract(epoch from {0} - {1})", Double.class, BATCHES.ENDED_AT, BATCHES.STARTED_AT);

  private final DSLContext dsl;

  /** Over a catalog already migrated (nothing is migrated here). */
  public MirrorProgress(DataSource catalog) {
    this.dsl = DSL.using(catalog, SQLDialect.POSTGRES);
  }

  /**
   * What a mirror's batch history adds up to.
   *
   * @param firstDeliveringStart the start of the first batch that delivered records, null if none did
   * @param lastDeliveringEnd the end of the last batch that delivered records, null if none did
   * @param p50Seconds the median batch duration, 0 without batches
   * @param p99Seconds the 99th percentile of batch durations, 0 without batches
   */
  public record BatchTotals(long batches, long lastBatchId, long records, Instant firstDeliveringStart,
      Instant lastDeliveringEnd, double p50Seconds, double p99Seconds) {}

  /** @param partitions the partitions planned, over every collection of the mirror's snapshot */
  public record SnapshotTotals(long partitions, long partitionsDone, long documentsCopied) {}

  public BatchTotals batchTotals(String mirror) {
    Record7<Integer, Long, BigDecimal, OffsetDateTime, OffsetDateTime, Double, Double> row = dsl.select(
            count(),
            coalesce(max(BATCHES.BATCH_ID), 0L),
            coalesce(sum(BATCHES.RECORDS), BigDecimal.ZERO),
            min(BATCHES.STARTED_AT).filterWhere(BATCHES.RECORDS.gt(0L)),
            max(BATCHES.ENDED_AT).filterWhere(BATCHES.RECORDS.gt(0L)),
            coalesce(percentileCont(0.5).withinGroupOrderBy(BATCH_SECONDS).cast(Double.class), 0.0),
            coalesce(percentileCont(0.99).withinGroupOrderBy(BATCH_SECONDS).cast(Double.class), 0.0))
        .from(BATCHES)
        .where(BATCHES.MIRROR_NAME.eq(mirror))
        .fetchSingle();
    return new BatchTotals(row.value1(), row.value2(), row.value3().longValue(), instant(row.value4()),
        instant(row.value5()), row.value6(), row.value7());
  }

  /** The records the batches of these mirrors delivered, together. */
  public long recordsDelivered(Collection<String> mirrors) {
    return dsl.select(coalesce(sum(BATCHES.RECORDS), BigDecimal.ZERO))
        .from(BATCHES)
        .where(BATCHES.MIRROR_NAME.in(mirrors))
        .fetchSingle().value1().longValue();
  }

  /** The rows the mirror's batches appended to history tables, by their own count. */
  public long historyRowsReported(String mirror) {
    return dsl.select(coalesce(sum(BATCHES.HISTORY_ROWS), BigDecimal.ZERO))
        .from(BATCHES)
        .where(BATCHES.MIRROR_NAME.eq(mirror))
        .fetchSingle().value1().longValue();
  }

  /** The first of these mirrors, by name, whose status is failed. */
  public Optional<String> firstFailed(Collection<String> mirrors) {
    return dsl.select(MIRRORS.NAME)
        .from(MIRRORS)
        .where(MIRRORS.NAME.in(mirrors).and(MIRRORS.STATUS.eq(Catalog.statusOf(MirrorPhase.FAILED))))
        .orderBy(MIRRORS.NAME)
        .limit(1)
        .fetchOptional(MIRRORS.NAME);
  }

  /** The committed resume tokens of these mirrors, by mirror; a mirror without one is absent. */
  public Map<String, String> committedTokens(Collection<String> mirrors) {
    Map<String, String> tokens = new LinkedHashMap<>();
    dsl.select(CHECKPOINTS.MIRROR_NAME, CHECKPOINTS.RESUME_TOKEN)
        .from(CHECKPOINTS)
        .where(CHECKPOINTS.MIRROR_NAME.in(mirrors).and(CHECKPOINTS.RESUME_TOKEN.isNotNull()))
        .forEach(row -> tokens.put(row.value1(), row.value2()));
    return tokens;
  }

  /** Seconds from the committed checkpoint's cluster time to now; empty without one. */
  public Optional<Long> checkpointAgeSeconds(String mirror) {
    return dsl.select(DSL.field("extract(epoch from now() - {0})::bigint", Long.class, CHECKPOINTS.CLUSTER_TIME_AT))
        .from(CHECKPOINTS)
        .where(CHECKPOINTS.MIRROR_NAME.eq(mirror).and(CHECKPOINTS.CLUSTER_TIME_AT.isNotNull()))
        .fetchOptional(0, Long.class);
  }

  /**
   * Seconds from the source commit time of the newest change visible in the destination to now
   * ({@code mirror_status.visible_lag}: as of the running batch's last report, every 2 s, or the
   * last batch that delivered); empty before any change is visible.
   */
  public Optional<Long> visibleLagSeconds(String mirror) {
    return dsl.fetchOptional("select extract(epoch from visible_lag)::bigint from mongo_cdc.mirror_status"
        + " where mirror = ? and visible_lag is not null", mirror).map(row -> row.get(0, Long.class));
  }

  public SnapshotTotals snapshotTotals(String mirror) {
    long partitions = dsl.select(coalesce(sum(SNAPSHOT_COLLECTIONS.PARTITIONS_TOTAL), BigDecimal.ZERO))
        .from(SNAPSHOT_COLLECTIONS)
        .where(SNAPSHOT_COLLECTIONS.MIRROR_NAME.eq(mirror))
        .fetchSingle().value1().longValue();
    var done = dsl.select(count().filterWhere(SNAPSHOT_PARTITIONS.STATE.eq("done")),
            coalesce(sum(SNAPSHOT_PARTITIONS.DOCUMENTS), BigDecimal.ZERO))
        .from(SNAPSHOT_PARTITIONS)
        .where(SNAPSHOT_PARTITIONS.MIRROR_NAME.eq(mirror))
        .fetchSingle();
    return new SnapshotTotals(partitions, done.value1(), done.value2().longValue());
  }

  /** The mirror's events in quarantine that no replay has delivered yet. */
  public long quarantined(String mirror) {
    return dsl.fetchCount(QUARANTINED_EVENTS,
        QUARANTINED_EVENTS.MIRROR_NAME.eq(mirror).and(QUARANTINED_EVENTS.REPLAYED_AT.isNull()));
  }

  private static Instant instant(OffsetDateTime time) {
    return time == null ? null : time.toInstant();
  }
}
