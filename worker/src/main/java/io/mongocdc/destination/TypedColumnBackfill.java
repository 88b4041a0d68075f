package io.mongocdc.destination;

import io.mongocdc.decode.JsonbSanitizer;
import static io.mongocdc.destination.DestinationColumn.DOC;
import static io.mongocdc.destination.DestinationColumn.DRIFT;
import static io.mongocdc.destination.DestinationColumn.ID;
import static io.mongocdc.destination.DestinationColumn.POSITION;
import static io.mongocdc.destination.DestinationColumn.RAW_DOC;

import io.mongocdc.decode.ColumnProjection;
import io.mongocdc.decode.ColumnType;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.TypedValues;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.bson.RawBsonDocument;

/**
 * Fills a table's typed columns from its rows' {@code doc}, for rows that do not hold them yet
 * (a column added by an edit): in key order, a bounded number of rows per transaction, each row
 * converted by the same {@link DocumentProjector} as the decode pool, so the result is what the
 * stream would have written. Online: short transactions, row locks only, and a row the stream
 * rewrote meanwhile (its {@code _position} moved) is left to the stream's values. Only the
 * columns a row lacks are written (with their drift): one it holds keeps its value. Idempotent: a
 * filled row is not read again.
 *
 * <p>{@code doc} is read back as Extended JSON (or {@code _raw_doc} where it had to be altered):
 * what relaxed JSON cannot tell apart (an int64 that fits int32) converts alike in every column
 * type, so the values are those of the raw BSON.
 */
final class TypedColumnBackfill {

  private final DestinationTable table;
  private final DocumentProjector projector;
  private final String selectSql;
  private final String updateSql;

  TypedColumnBackfill(DestinationTable table, DocumentProjector projector) {
    this.table = table;
    this.projector = projector;
    List<ColumnProjection> columns = projector.columns();
    StringBuilder unfilled = new StringBuilder();
    StringBuilder set = new StringBuilder();
    StringBuilder driftOfUnfilled = new StringBuilder();
    for (ColumnProjection column : columns) {
      String q = TableNaming.quote(column.name());
      unfilled.append(unfilled.isEmpty() ? "" : " or ").append(unfilled("", q));
      // Only the columns the row lacks: one it holds (a value or drift) keeps what the stream or an
      // earlier fill wrote, even when this row's doc can no longer be read.
      set.append(q).append(" = case when ").append(unfilled("t.", q)).append(" then cast(? as ")
          .append(column.type().sql()).append(") else t.").append(q).append(" end, ");
      driftOfUnfilled.append(" when ? then ").append(unfilled("t.", q));
    }
    String id = ID.quoted();
    String drift = DRIFT.quoted();
    this.selectSql = "select " + id + ", coalesce(" + RAW_DOC.quoted() + ", " + DOC.quoted() + "::text), "
        + POSITION.quoted() + " from " + table.qualifiedName() + " where " + id + " > ? and " + DOC.quoted()
        + " is not null and (" + unfilled + ") order by " + id + " limit ?";
    // The new drift of the columns filled, added to the drift of the others.
    this.updateSql = "update " + table.qualifiedName() + " as t set " + set + drift + " = nullif(coalesce(t." + drift
        + ", '{}'::jsonb) || coalesce((select jsonb_object_agg(d.key, d.value) from jsonb_each(cast(? as jsonb)) d"
        + " where case d.key" + driftOfUnfilled + " else false end), '{}'::jsonb), '{}'::jsonb)"
        + " where t." + id + " = ? and t." + POSITION.quoted() + " = ?";
  }

  /**
   * Whether the column quoted {@code q} is not filled yet (one parameter: the column's name);
   * {@code row} qualifies the row's columns ("t." in the update, where a subquery has columns of
   * its own).
   */
  private static String unfilled(String row, String q) {
    return "(" + row + q + " is null and not coalesce(jsonb_exists(" + row + DRIFT.quoted() + ", ?), false))";
  }

  /**
   * Fills the next rows after {@code afterKey} ("" for the first), in one transaction on the
   * caller's connection (auto-commit off). @return the last key read, or null when no row is left
   */
  String fillNext(Connection connection, String afterKey, int rows, long[] filled) throws SQLException {
    List<String[]> read = new ArrayList<>(rows);
    try (PreparedStatement select = connection.prepareStatement(selectSql)) {
      int p = 1;
      select.setString(p++, afterKey);
      for (ColumnProjection column : projector.columns()) {
        select.setString(p++, column.name());
      }
      select.setInt(p, rows);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          read.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
        }
      }
    }
    if (read.isEmpty()) {
      connection.commit();
      return null;
    }
    try (PreparedStatement update = connection.prepareStatement(updateSql)) {
      for (String[] row : read) {
        TypedValues typed = project(row[1]);
        int p = 1;
        List<ColumnProjection> columns = projector.columns();
        for (int i = 0; i < columns.size(); i++) {
          update.setString(p++, columns.get(i).name());
          bind(connection, update, p++, columns.get(i).type(), typed.values()[i]);
        }
        update.setString(p++, typed.drift() == null ? null : JsonbSanitizer.sanitize(typed.drift()));
        for (ColumnProjection column : columns) {
          update.setString(p++, column.name());
          update.setString(p++, column.name());
        }
        update.setString(p++, row[0]);
        update.setString(p, row[2]);
        update.addBatch();
      }
      for (int count : update.executeBatch()) {
        filled[0] += Math.max(0, count);
      }
    }
    connection.commit();
    return read.get(read.size() - 1)[0];
  }

  /**
   * The row's typed values from its stored document. A document jsonb gave back in a form Extended
   * JSON cannot read (an integer beyond int64: a large double stored before doubles kept their
   * fraction in {@code doc}) is drift on every column it fills, never a failed fill: retrying could
   * not change it, and the row's next change writes its columns.
   */
  private TypedValues project(String document) {
    RawBsonDocument parsed;
    try {
      parsed = RawBsonDocument.parse(document);
    } catch (RuntimeException e) {
      return projector.unreadable("doc cannot be read back as Extended JSON (" + e.getClass().getSimpleName()
          + ": " + e.getMessage() + ")");
    }
    return projector.project(parsed);
  }

  DestinationTable table() {
    return table;
  }

  /** One value as a parameter the {@code cast(? as type)} of its column reads back exactly. */
  static void bind(Connection connection, PreparedStatement ps, int index, ColumnType type, Object value)
      throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.VARCHAR);
      return;
    }
    switch (type) {
      case TEXT -> ps.setString(index, (String) value);
      case BIGINT -> ps.setLong(index, (Long) value);
      case NUMERIC -> ps.setString(index, value instanceof BigDecimal d ? d.toPlainString()
          : ((Double) value).isNaN() ? "NaN" : (Double) value > 0 ? "Infinity" : "-Infinity");
      case DOUBLE_PRECISION -> ps.setString(index, Double.toString((Double) value));
      case BOOLEAN -> ps.setBoolean(index, (Boolean) value);
      case TIMESTAMPTZ -> {
        long micros = (Long) value;
        ps.setObject(index, OffsetDateTime.ofInstant(
            Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1000),
            ZoneOffset.UTC));
      }
      case UUID -> ps.setObject(index, value);
      case JSONB -> ps.setString(index, JsonbSanitizer.sanitize((String) value));
      case TEXT_ARRAY -> ps.setArray(index, connection.createArrayOf("text", (String[]) value));
    }
  }
}
