package io.mongocdc.destination;

import static io.mongocdc.destination.DestinationColumn.DOC;
import static io.mongocdc.destination.DestinationColumn.DOC_BEFORE;
import static io.mongocdc.destination.DestinationColumn.DRIFT;
import static io.mongocdc.destination.DestinationColumn.ID;
import static io.mongocdc.destination.DestinationColumn.POSITION;
import static io.mongocdc.destination.DestinationColumn.RAW_DOC;
import static io.mongocdc.destination.DestinationColumn.UPDATE_DESCRIPTION;

import io.mongocdc.decode.ColumnProjection;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.DocumentRenderer;
import io.mongocdc.decode.JsonbSanitizer;
import io.mongocdc.decode.TypedValues;
import io.mongocdc.privacy.FieldRedactor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.bson.RawBsonDocument;

/**
 * Applies field rules added to a mirror to the rows one collection's tables hold from before them:
 * the state table in key order, then the history table in stream order, a bounded number of rows
 * per transaction, only rows whose {@code _position} is in the rewrite's {@link Range}: not after
 * the point the rules took effect at (later rows have them already), or past it for the rows a
 * cancelled or failed batch wrote before the rules. Each document is read back as Extended JSON, as a typed
 * column backfill reads it, given the rules, rendered again and written with its typed columns; a
 * row the stream rewrote meanwhile (its {@code _position} moved) is left to the stream's values. A
 * document Extended JSON cannot read back (an integer beyond int64 stored long ago) becomes {@code
 * {}}: nothing the rules should have removed stays, and {@code mirror resync} restores the rest.
 * Each transaction records the last row it rewrote ({@link FieldRuleRewriteProgress}), so a
 * retried slice goes on after it instead of applying the rules to a row twice.
 */
final class FieldRuleRewriter {

  /** Where a slice ended: the last row it read, or null when the table has no row left. */
  record Next(String position, String key, long rewritten) {}

  /**
   * The {@code _position}s a rewrite covers: after {@code after} (null: from the first) and not
   * after {@code upTo} (null: to the last).
   */
  record Range(String after, String upTo) {

    /** {@code and <column> > ? and <column> <= ?}, each bound only when there is one. */
    String condition(String column) {
      return (after == null ? "" : " and " + column + " > ?") + (upTo == null ? "" : " and " + column + " <= ?");
    }

    /** Binds the bounds {@link #condition} names, from parameter {@code index} on; returns the next index. */
    int bind(PreparedStatement statement, int index) throws SQLException {
      if (after != null) {
        statement.setString(index++, after);
      }
      if (upTo != null) {
        statement.setString(index++, upTo);
      }
      return index;
    }
  }

  private static final RawBsonDocument EMPTY = RawBsonDocument.parse("{}");

  private final DestinationTable table;
  private final FieldRedactor rules;
  private final DocumentRenderer renderer;
  private final DocumentProjector projector;
  private final FieldRuleRewriteProgress progress;

  /**
   * @param projector the table's typed columns; null for none (and for a history table)
   * @param progress where each transaction records the last row it rewrote, before it commits
   */
  FieldRuleRewriter(DestinationTable table, FieldRedactor rules, DocumentRenderer renderer,
      DocumentProjector projector, FieldRuleRewriteProgress progress) {
    this.table = table;
    this.rules = rules;
    this.renderer = renderer;
    this.projector = projector;
    this.progress = progress;
  }

  /**
   * Rewrites the state table's next rows after key {@code afterKey} ("" for the first) written in
   * {@code range}, in one transaction on the caller's connection (auto-commit off).
   */
  Next rewriteTable(Connection connection, String afterKey, Range range, int rows) throws SQLException {
    String id = ID.quoted();
    List<String[]> read = new ArrayList<>(rows);
    try (PreparedStatement select = connection.prepareStatement("select " + id + ", coalesce(" + RAW_DOC.quoted()
        + ", " + DOC.quoted() + "::text), " + POSITION.quoted() + " from " + table.qualifiedName() + " where " + id
        + " > ?" + range.condition(POSITION.quoted()) + " order by " + id + " limit ?")) {
      select.setString(1, afterKey);
      select.setInt(range.bind(select, 2), rows);
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
    List<ColumnProjection> columns = projector == null ? List.of() : projector.columns();
    StringBuilder set = new StringBuilder(DOC.quoted() + " = cast(? as jsonb), " + RAW_DOC.quoted() + " = ?");
    for (ColumnProjection column : columns) {
      set.append(", ").append(TableNaming.quote(column.name())).append(" = cast(? as ").append(column.type().sql())
          .append(')');
    }
    if (!columns.isEmpty()) {
      set.append(", ").append(DRIFT.quoted()).append(" = cast(? as jsonb)");
    }
    long rewritten = 0;
    try (PreparedStatement update = connection.prepareStatement("update " + table.qualifiedName() + " set " + set
        + " where " + id + " = ? and " + POSITION.quoted() + " = ?")) {
      for (String[] row : read) {
        if (row[1] == null) {
          continue; // a tombstone: no document
        }
        RawBsonDocument document = readBack(row[1]);
        // One that cannot be read back keeps nothing: the rules could not tell what in it to keep.
        RawBsonDocument redacted = document == null ? EMPTY : rules.document(document);
        String json = renderer.render(redacted);
        String doc = JsonbSanitizer.sanitize(json);
        int p = 1;
        update.setString(p++, doc);
        update.setString(p++, doc.equals(json) ? null : json);
        if (!columns.isEmpty()) {
          TypedValues typed = projector.project(redacted);
          for (int i = 0; i < columns.size(); i++) {
            TypedColumnBackfill.bind(connection, update, p++, columns.get(i).type(), typed.values()[i]);
          }
          update.setString(p++, typed.drift() == null ? null : JsonbSanitizer.sanitize(typed.drift()));
        }
        update.setString(p++, row[0]);
        update.setString(p, row[2]);
        update.addBatch();
      }
      for (int count : update.executeBatch()) {
        rewritten += Math.max(0, count);
      }
    }
    String[] last = read.get(read.size() - 1);
    progress.record(connection, new FieldRuleRewriteProgress.At(table.source().collection(),
        io.mongocdc.workflows.model.FieldRuleRewrite.TABLE, null, last[0]));
    connection.commit();
    return new Next(null, last[0], rewritten);
  }

  /**
   * Rewrites the history table's next rows after ({@code afterPosition}, {@code afterKey}) ("" and
   * "" for the first) written in {@code range}: the document, the pre-image and the update
   * description of each.
   */
  Next rewriteHistory(Connection connection, String afterPosition, String afterKey, Range range, int rows)
      throws SQLException {
    String position = POSITION.quoted();
    String id = ID.quoted();
    List<String[]> read = new ArrayList<>(rows);
    try (PreparedStatement select = connection.prepareStatement("select " + position + ", " + id + ", coalesce("
        + RAW_DOC.quoted() + ", " + DOC.quoted() + "::text), " + DOC_BEFORE.quoted() + "::text, "
        + UPDATE_DESCRIPTION.quoted() + "::text from " + table.qualifiedName() + " where (" + position + ", " + id
        + ") > (?, ?)" + range.condition(position) + " order by " + position + ", " + id + " limit ?")) {
      select.setString(1, afterPosition);
      select.setString(2, afterKey);
      select.setInt(range.bind(select, 3), rows);
      try (ResultSet rs = select.executeQuery()) {
        while (rs.next()) {
          read.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5)});
        }
      }
    }
    if (read.isEmpty()) {
      connection.commit();
      return null;
    }
    long rewritten = 0;
    try (PreparedStatement update = connection.prepareStatement("update " + table.qualifiedName() + " set "
        + DOC.quoted() + " = cast(? as jsonb), " + RAW_DOC.quoted() + " = ?, " + DOC_BEFORE.quoted()
        + " = cast(? as jsonb), " + UPDATE_DESCRIPTION.quoted() + " = cast(? as jsonb) where " + position + " = ? and "
        + id + " = ?")) {
      for (String[] row : read) {
        String json = redacted(row[2], rules::document);
        String doc = json == null ? null : JsonbSanitizer.sanitize(json);
        update.setString(1, doc);
        update.setString(2, doc == null || doc.equals(json) ? null : json);
        update.setString(3, sanitized(redacted(row[3], rules::document)));
        update.setString(4, sanitized(redacted(row[4], rules::updateDescription)));
        update.setString(5, row[0]);
        update.setString(6, row[1]);
        update.addBatch();
      }
      for (int count : update.executeBatch()) {
        rewritten += Math.max(0, count);
      }
    }
    String[] last = read.get(read.size() - 1);
    progress.record(connection, new FieldRuleRewriteProgress.At(table.source().collection(),
        io.mongocdc.workflows.model.FieldRuleRewrite.HISTORY, last[0], last[1]));
    connection.commit();
    return new Next(last[0], last[1], rewritten);
  }

  /**
   * A stored JSON document with the rules applied, rendered again; null for none. One that cannot
   * be read back keeps nothing: the rules could not tell what in it to keep.
   */
  private String redacted(String stored, UnaryOperator<RawBsonDocument> apply) {
    if (stored == null) {
      return null;
    }
    RawBsonDocument document = readBack(stored);
    return document == null ? "{}" : renderer.render(apply.apply(document));
  }

  private static String sanitized(String json) {
    return json == null ? null : JsonbSanitizer.sanitize(json);
  }

  /** The stored document as BSON; null when Extended JSON cannot read it back. */
  private static RawBsonDocument readBack(String json) {
    try {
      return RawBsonDocument.parse(json);
    } catch (RuntimeException e) {
      return null;
    }
  }
}
