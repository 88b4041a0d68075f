package io.mongocdc.catalog;

import static io.mongocdc.catalog.jooq.Tables.BATCHES;
import static io.mongocdc.catalog.jooq.Tables.BATCH_ATTEMPTS;
import static io.mongocdc.catalog.jooq.Tables.TABLE_COUNTERS;
import static org.jooq.impl.DSL.excluded;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.catalog.jooq.tables.records.BatchesRecord;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.workflows.model.BatchFigure;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.BatchFreshness;
import io.mongocdc.workflows.model.Stage;
import io.mongocdc.workflows.model.TableFigures;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jooq.DSLContext;
import org.jooq.Field;
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
  /** The figures recorded in a column of their own, as declared. */
  private static final List<BatchFigure<?>> RECORDED = BatchFigures.DECLARED.stream()
      .filter(figure -> figure.column() != null).toList();

  private final DSLContext dsl;

  public BatchHistory(DSLContext dsl) {
    this.dsl = Objects.requireNonNull(dsl, "dsl");
  }

  /**
   * Records a batch.
   *
   * @return true if this call recorded it, false if it had been recorded already
   */
  public boolean record(BatchReport report) {
    BatchFigures figures = report.figures();
    TableFigures total = figures.totalsOverTables();
    BatchFreshness f = figures.get(BatchFigures.FRESHNESS);
    ResumeToken first = report.firstPosition();
    Map<Field<?>, Object> row = new LinkedHashMap<>();
    row.put(BATCHES.MIRROR_NAME, report.mirror());
    row.put(BATCHES.BATCH_ID, report.batchId());
    row.put(BATCHES.STARTED_AT, odt(report.startedAt()));
    row.put(BATCHES.ENDED_AT, odt(report.endedAt()));
    row.put(BATCHES.INSERTS, total == null ? null : total.inserts());
    row.put(BATCHES.UPDATES, total == null ? null : total.updates());
    row.put(BATCHES.REPLACES, total == null ? null : total.replaces());
    row.put(BATCHES.DELETES, total == null ? null : total.deletes());
    row.put(BATCHES.FIRST_POSITION, first == null ? null : first.data());
    row.put(BATCHES.LAST_POSITION, report.lastPosition() == null ? null : report.lastPosition().data());
    row.put(BATCHES.READ_MS, report.millisIn(Stage.READ));
    row.put(BATCHES.READER_BACK_PRESSURE_MS, report.millisIn(Stage.READER_BACK_PRESSURE));
    row.put(BATCHES.DECODE_MS, report.millisIn(Stage.DECODE));
    row.put(BATCHES.SENDER_WAIT_MS, report.millisIn(Stage.SENDER_WAITING_FOR_DECODE));
    row.put(BATCHES.SINK_WRITE_MS, report.millisIn(Stage.SINK_WRITE));
    row.put(BATCHES.SINK_COMMIT_MS, report.millisIn(Stage.SINK_COMMIT));
    row.put(BATCHES.APPLY_BACK_PRESSURE_MS, report.millisIn(Stage.APPLY_BACK_PRESSURE));
    row.put(BATCHES.LANE_COMMIT_MS, report.millisIn(Stage.LANE_COMMIT));
    row.put(BATCHES.ERROR, report.error());
    row.put(BATCHES.FRESHNESS_P50_MS, f == null ? null : f.p50Millis());
    row.put(BATCHES.FRESHNESS_P99_MS, f == null ? null : f.p99Millis());
    row.put(BATCHES.FRESHNESS_MAX_MS, f == null ? null : f.maxMillis());
    row.put(BATCHES.VISIBLE_THROUGH, f == null ? null : odt(Instant.ofEpochMilli(f.visibleThroughMillis())));
    for (BatchFigure<?> figure : RECORDED) {
      Field<?> column = column(figure);
      row.put(column, column.getDataType().convert(columnValue(figures.get(figure))));
    }
    // A running batch's row is replaced by its final report, in every column but the key and its start.
    Map<Field<?>, Field<?>> replaced = new LinkedHashMap<>();
    for (Field<?> column : row.keySet()) {
      if (column != BATCHES.MIRROR_NAME && column != BATCHES.BATCH_ID && column != BATCHES.STARTED_AT) {
        replaced.put(column, excluded(column));
      }
    }
    return dsl.transactionResult(
        configuration -> {
          DSLContext tx = configuration.dsl();
          int changed =
              tx.insertInto(BATCHES)
                  .set(row)
                  .onConflict(BATCHES.MIRROR_NAME, BATCHES.BATCH_ID)
                  .doUpdate()
                  .set(replaced)
                  // only a running batch's row is replaced; a finished one is final
                  .where(BATCHES.ENDED_AT.isNull())
                  .execute();
          if (changed == 0) {
            return false;
          }
          if (report.endedAt() != null && report.error() == null) {
            addTableCounts(tx, report.mirror(), report.batchId(), figures.get(BatchFigures.TABLES));
            ColumnDriftStore.add(tx, report.mirror(), figures.get(BatchFigures.COLUMN_DRIFT));
          }
          return true;
        });
  }

  /** The column of {@code batches} that records {@code figure}. */
  static Field<?> column(BatchFigure<?> figure) {
    Field<?> column = BATCHES.field(figure.column());
    if (column == null) {
      throw new IllegalStateException("batch figure " + figure.name() + " names a column batches does not have: "
          + figure.column());
    }
    return column;
  }

  /** A figure's value as its column holds it: a map by name as a JSON object, null when empty. */
  private static Object columnValue(Object value) {
    if (!(value instanceof Map<?, ?> byName)) {
      return value;
    }
    if (byName.isEmpty()) {
      return null;
    }
    try {
      return JSONB.valueOf(JSON.writeValueAsString(byName));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write a batch figure as JSON: " + byName, e);
    }
  }

  /** The failure type of an attempt found open when the mirror's next attempt started. */
  public static final String ATTEMPT_LOST = "AttemptLost";

  /**
   * Keeps the start of an attempt of a batch: a {@code batch_attempts} row, so an attempt lost
   * with its worker (killed, its heartbeat timed out) leaves its trace. An attempt of the mirror
   * still open then (a mirror runs one attempt at a time) was lost: it is marked failed with
   * {@link #ATTEMPT_LOST}.
   */
  public void recordAttemptStarted(String mirror, long batchId, int attempt) {
    dsl.transaction(configuration -> {
      DSLContext tx = configuration.dsl();
      tx.update(BATCH_ATTEMPTS)
          .set(BATCH_ATTEMPTS.FAILURE_TYPE, ATTEMPT_LOST)
          .set(BATCH_ATTEMPTS.MESSAGE, "the attempt ended without a word (its worker stopped, or its heartbeat"
              + " timed out); found when attempt " + attempt + " of batch " + batchId + " started")
          .set(BATCH_ATTEMPTS.FAILED_AT, DSL.currentOffsetDateTime())
          .where(BATCH_ATTEMPTS.MIRROR_NAME.eq(mirror))
          .and(BATCH_ATTEMPTS.ENDED_AT.isNull())
          .and(BATCH_ATTEMPTS.FAILED_AT.isNull())
          .execute();
      tx.insertInto(BATCH_ATTEMPTS)
          .set(BATCH_ATTEMPTS.MIRROR_NAME, mirror)
          .set(BATCH_ATTEMPTS.BATCH_ID, batchId)
          .set(BATCH_ATTEMPTS.ATTEMPT, attempt)
          .set(BATCH_ATTEMPTS.STARTED_AT, DSL.currentOffsetDateTime())
          .execute();
    });
  }

  /** Completes the row of an attempt that ended without failing: it delivered its batch, or it was cancelled. */
  public void recordAttemptEnded(String mirror, long batchId, int attempt) {
    dsl.update(BATCH_ATTEMPTS)
        .set(BATCH_ATTEMPTS.ENDED_AT, DSL.currentOffsetDateTime())
        .where(openAttempt(mirror, batchId, attempt))
        .execute();
  }

  /**
   * Keeps a failed attempt of a batch: its {@code batch_attempts} row completed (or written, when
   * its start left none), and on the batch's row (one still running, created if needed) the error
   * and the attempt, so the mirror's last batch shows why it is being retried. A finished batch's
   * row is left alone.
   */
  public void recordFailedAttempt(String mirror, long batchId, int attempt, String failureType, String message) {
    dsl.transaction(configuration -> {
      DSLContext tx = configuration.dsl();
      int completed = tx.update(BATCH_ATTEMPTS)
          .set(BATCH_ATTEMPTS.FAILURE_TYPE, failureType)
          .set(BATCH_ATTEMPTS.MESSAGE, message)
          .set(BATCH_ATTEMPTS.FAILED_AT, DSL.currentOffsetDateTime())
          .set(BATCH_ATTEMPTS.ENDED_AT, DSL.currentOffsetDateTime())
          .where(openAttempt(mirror, batchId, attempt))
          .execute();
      if (completed == 0) {
        tx.insertInto(BATCH_ATTEMPTS)
            .set(BATCH_ATTEMPTS.MIRROR_NAME, mirror)
            .set(BATCH_ATTEMPTS.BATCH_ID, batchId)
            .set(BATCH_ATTEMPTS.ATTEMPT, attempt)
            .set(BATCH_ATTEMPTS.FAILURE_TYPE, failureType)
            .set(BATCH_ATTEMPTS.MESSAGE, message)
            .set(BATCH_ATTEMPTS.FAILED_AT, DSL.currentOffsetDateTime())
            .set(BATCH_ATTEMPTS.ENDED_AT, DSL.currentOffsetDateTime())
            .execute();
      }
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

  private static org.jooq.Condition openAttempt(String mirror, long batchId, int attempt) {
    return BATCH_ATTEMPTS.MIRROR_NAME.eq(mirror).and(BATCH_ATTEMPTS.BATCH_ID.eq(batchId))
        .and(BATCH_ATTEMPTS.ATTEMPT.eq(attempt)).and(BATCH_ATTEMPTS.ENDED_AT.isNull())
        .and(BATCH_ATTEMPTS.FAILED_AT.isNull());
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
      DSLContext tx, String mirror, long batchId, Map<String, TableFigures> tables) {
    if (tables == null) {
      return;
    }
    for (Map.Entry<String, TableFigures> table : tables.entrySet()) {
      TableFigures c = table.getValue();
      tx.insertInto(TABLE_COUNTERS)
          .set(TABLE_COUNTERS.MIRROR_NAME, mirror)
          .set(TABLE_COUNTERS.DESTINATION_TABLE, table.getKey())
          .set(TABLE_COUNTERS.SOURCE_NAMESPACE, c.sourceNamespace() == null ? "" : c.sourceNamespace())
          .set(TABLE_COUNTERS.RECORDS, c.records())
          .set(TABLE_COUNTERS.BYTES, c.bytes())
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
