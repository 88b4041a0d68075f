package io.mongocdc.decode;

import io.mongocdc.workflows.model.JsonText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.bson.BsonArray;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;

/**
 * Extracts one table's typed column values from a raw document, on the decode thread that renders
 * its {@code doc}: each path is followed through the raw bytes (a sub-document is a view of them,
 * nothing is parsed twice) and its value converted by {@link ColumnConversion}. A value that does
 * not convert, or a path that leads nowhere, leaves the column NULL and is described in the row's
 * {@code _drift}; it never fails the document.
 *
 * <p>Thread-safe: it holds no mutable state.
 */
public final class DocumentProjector {

  /** Characters of a drifted value's JSON kept in {@code _drift}, at most. */
  static final int EXCERPT_CHARS = 64;

  private final List<ColumnProjection> columns;
  private final ValueJson json;

  public DocumentProjector(List<ColumnProjection> columns, DocumentRenderer renderer) {
    this.columns = List.copyOf(columns);
    this.json = new ValueJson(Objects.requireNonNull(renderer, "renderer"));
  }

  public List<ColumnProjection> columns() {
    return columns;
  }

  public TypedValues project(RawBsonDocument document) {
    Object[] values = new Object[columns.size()];
    Map<String, Object> drift = null;
    List<String> drifted = List.of();
    for (int i = 0; i < values.length; i++) {
      ColumnProjection column = columns.get(i);
      BsonValue value = find(document, column.path());
      Object converted;
      Map<String, Object> why = null;
      if (value == null) {
        why = new LinkedHashMap<>();
        why.put("bsonType", "missing");
      } else {
        converted = convert(value, column.type());
        if (converted instanceof ColumnConversion.Drift d) {
          why = new LinkedHashMap<>();
          why.put("bsonType", BsonTypes.name(value.getBsonType()));
          why.put("value", excerpt(value));
          why.put("reason", d.reason());
        } else {
          values[i] = converted;
        }
      }
      if (why != null) {
        if (drift == null) {
          drift = new LinkedHashMap<>();
          drifted = new ArrayList<>();
        }
        drift.put(column.name(), why);
        drifted.add(column.name());
      }
    }
    return new TypedValues(values, drift == null ? null : JsonText.of(drift), drifted);
  }

  /**
   * No value for any column, each drifted for {@code reason}: a document that cannot be read
   * (a backfill's {@code doc} that no longer parses as Extended JSON) leaves its row's columns to
   * its next change, as a value that does not convert does.
   */
  public TypedValues unreadable(String reason) {
    Map<String, Object> drift = new LinkedHashMap<>();
    List<String> drifted = new ArrayList<>();
    for (ColumnProjection column : columns) {
      Map<String, Object> why = new LinkedHashMap<>();
      why.put("bsonType", "unreadable");
      why.put("reason", reason);
      drift.put(column.name(), why);
      drifted.add(column.name());
    }
    return new TypedValues(new Object[columns.size()], drift.isEmpty() ? null : JsonText.of(drift), drifted);
  }

  private Object convert(BsonValue value, ColumnType type) {
    try {
      return ColumnConversion.convert(value, type, json);
    } catch (RuntimeException e) {
      // A value the renderer refuses (jsonb of something doc could not hold either) is drift too.
      return new ColumnConversion.Drift(String.valueOf(e.getMessage()));
    }
  }

  /** The value at {@code path}, or null when the path leads nowhere. */
  static BsonValue find(BsonDocument document, List<String> path) {
    BsonValue current = document;
    for (String segment : path) {
      if (current instanceof BsonDocument doc) {
        current = doc.get(segment);
      } else if (current instanceof BsonArray array && isIndex(segment)) {
        int index = Integer.parseInt(segment);
        current = index < array.size() ? array.get(index) : null;
      } else {
        return null;
      }
      if (current == null) {
        return null;
      }
    }
    return current;
  }

  private static boolean isIndex(String segment) {
    if (segment.isEmpty() || segment.length() > 9) {
      return false;
    }
    for (int i = 0; i < segment.length(); i++) {
      if (segment.charAt(i) < '0' || segment.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }

  private String excerpt(BsonValue value) {
    String text;
    try {
      text = json.render(value);
    } catch (RuntimeException e) {
      return "(cannot be rendered)";
    }
    if (text.length() <= EXCERPT_CHARS) {
      return text;
    }
    int end = EXCERPT_CHARS;
    if (Character.isHighSurrogate(text.charAt(end - 1))) {
      end--;
    }
    return text.substring(0, end) + "...";
  }
}
