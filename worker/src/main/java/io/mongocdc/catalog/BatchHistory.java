package io.mongocdc.catalog;

import static io.mongocdc.catalog.jooq.Tables.BATCHES;
import static io.mongocdc.catalog.jooq.Tables.BATCH_ATTEMPTS;
import static io.mongocdc.catalog.jooq.Tables.TABLE_COUNTERS;
import static org.jooq.impl.DSL.excluded;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.catalog.jooq.tables.records.BatchesRecord;
import io.mongocdc.workflows.model.BatchFreshness;
import io.mongocdc.workflows.model.Stage;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.impl.DSL;

/**
 * The batch history of mirrors and their per-table counters.
 *
 * <p>{@link #record} is idempotent per (mirror, batch id): the first report of a finished batch
 * inserts its row and adds its table counts to the counters, in one transaction; recording the
 * same batch again (an activity retry) changes nothing, so counters are never counted twice. A
 * report of a batch still running ({@code endedAt} null) may be replaced by its final report.
 */
public final class BatchHistory {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final DSLContext dsl;

  public BatchHistory(DSLContext dsl) {
    this.dsl = Objects.requireNonNull(dsl, "dsl");
  }

  /** Counts by name as a JSON object, or null for none. */
  private static JSONB countsJson(Map<String, Long> counts) {
    if (counts.isEmpty()) {
      return null;
    }
    try {
      return JSONB.valueOf(JSON.writeValueAsString(counts));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write counts as JSON: " + counts, e);
    }
  }

  /**
   * Records a batch.
   *
   * @return true if this call recorded it, false if it had been recorded already
   */
  public boolean record(BatchReport report) {
    return dsl.transactionResult(
        configuration -> {
          DSLContext tx = configuration.dsl();
          BatchReport.OperationCounts c = report.operations();
          BatchFreshness f = report.freshness();
          int changed =
              tx.insertInto(BATCHES)
                  .set(BATCHES.MIRROR_NAME, report.mirror())
                  .set(BATCHES.BATCH_ID, report.batchId())
                  .set(BATCHES.STARTED_AT, odt(report.startedAt()))
                  .set(BATCHES.ENDED_AT, odt(report.endedAt()))
                  .set(BATCHES.RECORDS, report.records())
                  .set(BATCHES.BYTES, report.bytes())
                  .set(BATCHES.INSERTS, c == null ? null : c.inserts())
                  .set(BATCHES.UPDATES, c == null ? null : c.updates())
                  .set(BATCHES.REPLACES, c == null ? null : c.replaces())
                  .set(BATCHES.DELETES, c == null ? null : c.deletes())
                  .set(
                      BATCHES.FIRST_POSITION,
                      report.firstPosition() == null ? null : report.firstPosition().data())
                  .set(
                      BATCHES.LAST_POSITION,
                      report.lastPosition() == null ? null : report.lastPosition().data())
                  .set(BATCHES.READ_MS, report.millisIn(Stage.READ))
                  .set(BATCHES.READER_BACK_PRESSURE_MS, report.millisIn(Stage.READER_BACK_PRESSURE))
                  .set(BATCHES.DECODE_MS, report.millisIn(Stage.DECODE))
                  .set(BATCHES.SENDER_WAIT_MS, report.millisIn(Stage.SENDER_WAITING_FOR_DECODE))
                  .set(BATCHES.SINK_WRITE_MS, report.millisIn(Stage.SINK_WRITE))
                  .set(BATCHES.SINK_COMMIT_MS, report.millisIn(Stage.SINK_COMMIT))
                  .set(BATCHES.APPLY_BACK_PRESSURE_MS, report.millisIn(Stage.APPLY_BACK_PRESSURE))
                  .set(BATCHES.LANE_COMMIT_MS, report.millisIn(Stage.LANE_COMMIT))
                  .set(BATCHES.END_REASON, report.endReason())
                  .set(BATCHES.ERROR, report.error())
                  .set(BATCHES.ATTEMPTS, report.attempts())
                  .set(BATCHES.QUARANTINED, report.quarantined())
                  .set(BATCHES.HISTORY_ROWS, report.historyRows())
                  .set(BATCHES.HISTORY_PRUNED, report.historyPruned())
                  .set(BATCHES.FRESHNESS_P50_MS, f == null ? null : f.p50Millis())
                  .set(BATCHES.FRESHNESS_P99_MS, f == null ? null : f.p99Millis())
                  .set(BATCHES.FRESHNESS_MAX_MS, f == null ? null : f.maxMillis())
                  .set(BATCHES.VISIBLE_THROUGH, f == null ? null : odt(Instant.ofEpochMilli(f.visibleThroughMillis())))
                  .set(BATCHES.EVENTS_SKIPPED, countsJson(report.eventsSkipped()))
                  .onConflict(BATCHES.MIRROR_NAME, BATCHES.BATCH_ID)
                  .doUpdate()
                  .set(BATCHES.ENDED_AT, excluded(BATCHES.ENDED_AT))
                  .set(BATCHES.RECORDS, excluded(BATCHES.RECORDS))
                  .set(BATCHES.BYTES, excluded(BATCHES.BYTES))
                  .set(BATCHES.INSERTS, excluded(BATCHES.INSERTS))
                  .set(BATCHES.UPDATES, excluded(BATCHES.UPDATES))
                  .set(BATCHES.REPLACES, excluded(BATCHES.REPLACES))
                  .set(BATCHES.DELETES, excluded(BATCHES.DELETES))
                  .set(BATCHES.FIRST_POSITION, excluded(BATCHES.FIRST_POSITION))
                  .set(BATCHES.LAST_POSITION, excluded(BATCHES.LAST_POSITION))
                  .set(BATCHES.READ_MS, excluded(BATCHES.READ_MS))
                  .set(BATCHES.READER_BACK_PRESSURE_MS, excluded(BATCHES.READER_BACK_PRESSURE_MS))
                  .set(BATCHES.DECODE_MS, excluded(BATCHES.DECODE_MS))
                  .set(BATCHES.SENDER_WAIT_MS, excluded(BATCHES.SENDER_WAIT_MS))
                  .set(BATCHES.SINK_WRITE_MS, excluded(BATCHES.SINK_WRITE_MS))
                  .set(BATCHES.SINK_COMMIT_MS, excluded(BATCHES.SINK_COMMIT_MS))
                  .set(BATCHES.APPLY_BACK_PRESSURE_MS, excluded(BATCHES.APPLY_BACK_PRESSURE_MS))
                  .set(BATCHES.LANE_COMMIT_MS, excluded(BATCHES.LANE_COMMIT_MS))
                  .set(BATCHES.END_REASON, excluded(BATCHES.END_REASON))
                  .set(BATCHES.ERROR, excluded(BATCHES.ERROR))
                  .set(BATCHES.ATTEMPTS, excluded(BATCHES.ATTEMPTS))
                  .set(BATCHES.QUARANTINED, excluded(BATCHES.QUARANTINED))
                  .set(BATCHES.HISTORY_ROWS, excluded(BATCHES.HISTORY_ROWS))
                  .set(BATCHES.HISTORY_PRUNED, excluded(BATCHES.HISTORY_PRUNED))
                  .set(BATCHES.FRESHNESS_P50_MS, excluded(BATCHES.FRESHNESS_P50_MS))
                  .set(BATCHES.FRESHNESS_P99_MS, excluded(BATCHES.FRESHNESS_P99_MS))
                  .set(BATCHES.FRESHNESS_MAX_MS, excluded(BATCHES.FRESHNESS_MAX_MS))
                  .set(BATCHES.VISIBLE_THROUGH, excluded(BATCHES.VISIBLE_THROUGH))
                  .set(BATCHES.EVENTS_SKIPPED, excluded(BATCHES.EVENTS_SKIPPED))
                  // only a running batch's row is replaced; a finished one is final
                  .where(BATCHES.ENDED_AT.isNull())
                  .execute();
          if (changed == 0) {
            return false;
          }
          if (report.endedAt() != null && report.error() == null) {
            addTableCounts(tx, report.mirror(), report.batchId(), report.tables());
            ColumnDriftStore.add(tx, report.mirror(), report.columnDrift());
          }
          return true;
        });
  }

  /**
   * Keeps a failed attempt of a batch: a {@code batch_attempts} row, and on the batch's row (one
   * still running, created if needed) the error and the attempt, so the mirror's last batch shows
   * why it is being retried. A finished batch's row is left alone.
   */
  public void recordFailedAttempt(String mirror, long batchId, int attempt, String failureType, String message) {
    dsl.transaction(configuration -> {
      DSLContext tx = configuration.dsl();
      tx.insertInto(BATCH_ATTEMPTS)
          .set(BATCH_ATTEMPTS.MIRROR_NAME, mirror)
          .set(BATCH_ATTEMPTS.BATCH_ID, batchId)
          .set(BATCH_ATTEMPTS.ATTEMPT, attempt)
          .set(BATCH_ATTEMPTS.FAILURE_TYPE, failureType)
          .set(BATCH_ATTEMPTS.MESSAGE, message)
          .execute();
      String error = "attempt " + attempt + ": [" + failureType + "] " + message;
      tx.insertInto(BATCHES)
          .set(BATCHES.MIRROR_NAME, mirror)
          .set(BATCHES.BATCH_ID, batchId)
          .set(BATCHES.STARTED_AT, DSL.currentOffsetDateTime())
          .set(BATCHES.ERROR, error)
          .set(BATCHES.ATTEMPTS, attempt)
          .onConflict(BATCHES.MIRROR_NAME, BATCHES.BATCH_ID)
          .doUpdate()
          .set(BATCHES.ERROR, excluded(BATCHES.ERROR))
          .set(BATCHES.ATTEMPTS, excluded(BATCHES.ATTEMPTS))
          .where(BATCHES.ENDED_AT.isNull())
          .execute();
    });
  }

  /** The most recent batches of a mirror, newest first. */
  public List<BatchesRecord> recent(String mirror, int limit) {
    return dsl.selectFrom(BATCHES)
        .where(BATCHES.MIRROR_NAME.eq(mirror))
        .orderBy(BATCHES.BATCH_ID.desc())
        .limit(limit)
        .fetch();
  }

  private static void addTableCounts(
      DSLContext tx, String mirror, long batchId, List<BatchReport.TableCounts> tables) {
    for (BatchReport.TableCounts table : tables) {
      BatchReport.OperationCounts c = table.operations();
      tx.insertInto(TABLE_COUNTERS)
          .set(TABLE_COUNTERS.MIRROR_NAME, mirror)
          .set(TABLE_COUNTERS.DESTINATION_TABLE, table.destinationTable())
          .set(TABLE_COUNTERS.SOURCE_NAMESPACE, table.sourceNamespace())
          .set(TABLE_COUNTERS.RECORDS, c.records())
          .set(TABLE_COUNTERS.BYTES, table.bytes())
          .set(TABLE_COUNTERS.INSERTS, c.inserts())
          .set(TABLE_COUNTERS.UPDATES, c.updates())
          .set(TABLE_COUNTERS.REPLACES, c.replaces())
          .set(TABLE_COUNTERS.DELETES, c.deletes())
          .set(TABLE_COUNTERS.LAST_BATCH_ID, batchId)
          .set(TABLE_COUNTERS.UPDATED_AT, DSL.currentOffsetDateTime())
          .onConflict(TABLE_COUNTERS.MIRROR_NAME, TABLE_COUNTERS.DESTINATION_TABLE)
          .doUpdate()
          .set(TABLE_COUNTERS.RECORDS, TABLE_COUNTERS.RECORDS.plus(excluded(TABLE_COUNTERS.RECORDS)))
          .set(TABLE_COUNTERS.BYTES, TABLE_COUNTERS.BYTES.plus(excluded(TABLE_COUNTERS.BYTES)))
          .set(TABLE_COUNTERS.INSERTS, TABLE_COUNTERS.INSERTS.plus(excluded(TABLE_COUNTERS.INSERTS)))
          .set(TABLE_COUNTERS.UPDATES, TABLE_COUNTERS.UPDATES.plus(excluded(TABLE_COUNTERS.UPDATES)))
          .set(
              TABLE_COUNTERS.REPLACES, TABLE_COUNTERS.REPLACES.plus(excluded(TABLE_COUNTERS.REPLACES)))
          .set(TABLE_COUNTERS.DELETES, TABLE_COUNTERS.DELETES.plus(excluded(TABLE_COUNTERS.DELETES)))
          .set(TABLE_COUNTERS.LAST_BATCH_ID, excluded(TABLE_COUNTERS.LAST_BATCH_ID))
          .set(TABLE_COUNTERS.UPDATED_AT, excluded(TABLE_COUNTERS.UPDATED_AT))
          .execute();
    }
  }

  private static OffsetDateTime odt(Instant instant) {
    return instant == null ? null : OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
  }
}
