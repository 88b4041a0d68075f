package io.mongocdc.catalog;

import static io.mongocdc.catalog.jooq.Tables.COLUMN_DRIFT;
import static org.jooq.impl.DSL.excluded;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/** The catalog's {@code column_drift} counters: typed column values that did not convert, per table and column. */
public final class ColumnDriftStore {

  private ColumnDriftStore() {}

  /** Adds {@code drift} (table: column: values) to the mirror's counters, within the caller's transaction. */
  static void add(DSLContext tx, String mirror, Map<String, Map<String, Long>> drift) {
    drift.forEach((table, columns) -> columns.forEach((column, values) ->
        tx.insertInto(COLUMN_DRIFT)
            .set(COLUMN_DRIFT.MIRROR_NAME, mirror)
            .set(COLUMN_DRIFT.DESTINATION_TABLE, table)
            .set(COLUMN_DRIFT.COLUMN_NAME, column)
            .set(COLUMN_DRIFT.DRIFTED, values)
            .set(COLUMN_DRIFT.UPDATED_AT, DSL.currentOffsetDateTime())
            .onConflict(COLUMN_DRIFT.MIRROR_NAME, COLUMN_DRIFT.DESTINATION_TABLE, COLUMN_DRIFT.COLUMN_NAME)
            .doUpdate()
            .set(COLUMN_DRIFT.DRIFTED, COLUMN_DRIFT.DRIFTED.plus(excluded(COLUMN_DRIFT.DRIFTED)))
            .set(COLUMN_DRIFT.UPDATED_AT, excluded(COLUMN_DRIFT.UPDATED_AT))
            .execute()));
  }

  /** The mirror's counters: table: column: values, sorted. */
  public static Map<String, Map<String, Long>> of(DSLContext dsl, String mirror) {
    Map<String, Map<String, Long>> drift = new LinkedHashMap<>();
    dsl.selectFrom(COLUMN_DRIFT)
        .where(COLUMN_DRIFT.MIRROR_NAME.eq(mirror))
        .orderBy(COLUMN_DRIFT.DESTINATION_TABLE, COLUMN_DRIFT.COLUMN_NAME)
        .fetch()
        .forEach(row -> drift.computeIfAbsent(row.getDestinationTable(), t -> new LinkedHashMap<>())
            .put(row.getColumnName(), row.getDrifted()));
    return drift;
  }
}
