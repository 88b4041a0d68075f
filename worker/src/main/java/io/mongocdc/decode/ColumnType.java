package io.mongocdc.decode;

/** The PostgreSQL types a typed column may have, and how each is spelled in SQL. */
public enum ColumnType {
  TEXT("text"),
  BIGINT("bigint"),
  NUMERIC("numeric"),
  DOUBLE_PRECISION("double precision"),
  BOOLEAN("boolean"),
  TIMESTAMPTZ("timestamptz"),
  UUID("uuid"),
  JSONB("jsonb"),
  TEXT_ARRAY("text[]");

  private final String sql;

  ColumnType(String sql) {
    this.sql = sql;
  }

  /** The type as PostgreSQL spells it (and the settings do). */
  public String sql() {
    return sql;
  }

  /** The type spelled {@code sql}. @throws IllegalArgumentException for any other spelling */
  public static ColumnType of(String sql) {
    for (ColumnType type : values()) {
      if (type.sql.equals(sql)) {
        return type;
      }
    }
    throw new IllegalArgumentException("not a typed column type: " + sql);
  }
}
