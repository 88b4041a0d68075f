package io.mongocdc.catalog;

import io.mongocdc.ports.MirrorHealth;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * What the mirror console shows, read from the catalog without changing anything: the rows of its
 * views and tables, each as column name to value, newest first where a section has a limit.
 * Nothing here holds a secret: peers appear by name, errors as the catalog keeps them (redacted
 * before they were written).
 */
public final class ConsoleQueries {

  /** Rows a section of the mirror page shows at most. */
  public static final int RECENT = 20;
  /** Batches the mirror page charts at most. */
  public static final int CHARTED_BATCHES = 500;

  private final DSLContext dsl;

  public ConsoleQueries(DataSource catalog) {
    this.dsl = DSL.using(catalog, SQLDialect.POSTGRES);
  }

  /** Every mirror's row of {@code mirror_status}, by name. */
  public List<Map<String, Object>> mirrors() {
    return dsl.fetch("select mirror, state, state_reason, state_since, visible_lag, replication_lag,"
        + " records_per_second, last_error, last_error_at, waiting from mongo_cdc.mirror_status order by mirror")
        .intoMaps();
  }

  /** Every mirror's health (quarantine, oplog headroom, verify), as the alert gauges read it. */
  public List<MirrorHealth> health() {
    return new MirrorHealthQuery(dsl).all();
  }

  /** The mirror's row of {@code mirror_status}; empty when the catalog has no such mirror. */
  public List<Map<String, Object>> mirror(String mirror) {
    return dsl.fetch("select * from mongo_cdc.mirror_status where mirror = ?", mirror).intoMaps();
  }

  /**
   * The mirror's last {@link #CHARTED_BATCHES} finished batches, oldest first: when each ended,
   * records per second, duration, freshness quantiles and stage times.
   */
  public List<Map<String, Object>> chartedBatches(String mirror) {
    return dsl.fetch("select * from (select batch_id, extract(epoch from ended_at) as ended_epoch, records,"
        + " extract(epoch from ended_at - started_at) as seconds,"
        + " records / greatest(extract(epoch from ended_at - started_at), 0.001) as records_per_second,"
        + " freshness_p50_ms, freshness_p99_ms, read_ms, decode_ms, sender_wait_ms, sink_write_ms, sink_commit_ms,"
        + " lane_commit_ms, end_reason from mongo_cdc.batches where mirror_name = ? and ended_at is not null"
        + " order by batch_id desc limit ?) recent order by batch_id", mirror, CHARTED_BATCHES).intoMaps();
  }

  public List<Map<String, Object>> snapshotProgress(String mirror) {
    return dsl.fetch("select collection, state, partitions_done, partitions_total, documents_copied,"
        + " estimated_documents, percent_done, elapsed from mongo_cdc.snapshot_progress where mirror = ?"
        + " order by collection", mirror).intoMaps();
  }

  public List<Map<String, Object>> failedAttempts(String mirror) {
    return dsl.fetch("select batch_id, attempt, failure_type, message, failed_at from mongo_cdc.batch_attempts"
        + " where mirror_name = ? and failed_at is not null order by id desc limit ?", mirror, RECENT).intoMaps();
  }

  /** Quarantined events without their documents (the catalog's table holds those, for replay). */
  public List<Map<String, Object>> quarantined(String mirror) {
    return dsl.fetch("select id, batch_id, source_namespace, table_name, operation, reason, quarantined_at,"
        + " replay_attempts, replayed_at from mongo_cdc.quarantined_events where mirror_name = ?"
        + " order by id desc limit ?", mirror, RECENT).intoMaps();
  }

  public List<Map<String, Object>> columnDrift(String mirror) {
    return dsl.fetch("select destination_table, column_name, drifted, updated_at from mongo_cdc.column_drift"
        + " where mirror_name = ? order by destination_table, column_name", mirror).intoMaps();
  }

  public List<Map<String, Object>> verifyRuns(String mirror) {
    return dsl.fetch("select r.run_id, r.repair, r.state, r.started_at, r.finished_at, r.ranges_total,"
        + " coalesce(sum(g.missing), 0) as missing, coalesce(sum(g.extra), 0) as extra,"
        + " coalesce(sum(g.different), 0) as different, coalesce(sum(g.unsettled), 0) as unsettled,"
        + " coalesce(sum(g.repaired), 0) as repaired"
        + " from mongo_cdc.verify_runs r left join mongo_cdc.verify_ranges g on g.run_id = r.run_id"
        + " where r.mirror_name = ? group by r.run_id order by r.run_id desc limit ?", mirror, RECENT).intoMaps();
  }

  /** The settings the catalog last recorded for the mirror, as JSON; null when it has none. */
  public String settings(String mirror) {
    Object settings = dsl.fetchValue("select jsonb_pretty(config -> 'settings') from mongo_cdc.mirrors where name = ?",
        mirror);
    return settings == null ? null : settings.toString();
  }
}
