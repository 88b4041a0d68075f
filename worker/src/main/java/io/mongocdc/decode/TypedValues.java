package io.mongocdc.decode;

import java.util.List;

/**
 * The typed column values of one document, in the table's column order, extracted by a {@link
 * DocumentProjector} in the decode pool.
 *
 * <p>Each value is null (the column is NULL) or, by the column's {@link ColumnType}: TEXT and
 * JSONB a {@code String} (JSONB as JSON text), BIGINT a {@code Long}, NUMERIC a {@code
 * BigDecimal} or a {@code Double} NaN / infinity, DOUBLE_PRECISION a {@code Double}, BOOLEAN a
 * {@code Boolean}, TIMESTAMPTZ a {@code Long} of microseconds since 1970 (within PostgreSQL's
 * range), UUID a {@code java.util.UUID}, TEXT_ARRAY a {@code String[]} whose elements may be null.
 *
 * @param values one per column, in order
 * @param drift the {@code _drift} JSON object (column: BSON type, value excerpt, reason) of the
 *     columns whose value did not convert; null when every one did
 * @param drifted the names of those columns, in column order; empty when none
 */
public record TypedValues(Object[] values, String drift, List<String> drifted) {

  public TypedValues {
    drifted = List.copyOf(drifted);
  }
}
