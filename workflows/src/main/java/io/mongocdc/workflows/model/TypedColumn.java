package io.mongocdc.workflows.model;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One declared projection of a collection's documents into a typed destination column.
 *
 * @param name the column's name (an SQL identifier, quoted when used; not one of {@link #RESERVED})
 * @param type the PostgreSQL type, one of {@link #TYPES}, spelled as there
 * @param path where the value is in the document: field names separated by dots, a numeric
 *     segment indexing an array ({@code items.0.sku})
 */
public record TypedColumn(String name, String type, String path) {

  /** The column types a projection may have, spelled as PostgreSQL spells them. */
  public static final List<String> TYPES = List.of(
      "text", "bigint", "numeric", "double precision", "boolean", "timestamptz", "uuid", "jsonb", "text[]");

  /** The columns every destination table has of its own, so no projection may take their name. */
  public static final Set<String> TABLE_COLUMNS = Set.of(
      "_id", "doc", "_raw_doc", "_position", "_commit_time", "_deleted", "_synced_at", "_drift");

  /**
   * PostgreSQL's system columns: every table has them, and {@code ALTER TABLE ... ADD COLUMN}
   * refuses their names (SQLSTATE 42701), which no retry or resume could get past.
   */
  public static final Set<String> SYSTEM_COLUMNS = Set.of("tableoid", "xmin", "cmin", "xmax", "cmax", "ctid");

  /** Every name a projection may not take: the table's own columns and PostgreSQL's system columns. */
  public static final Set<String> RESERVED = union(TABLE_COLUMNS, SYSTEM_COLUMNS);

  /** PostgreSQL truncates identifiers longer than this many bytes. */
  static final int MAX_NAME_BYTES = 63;

  public TypedColumn {
    // "double" alone is the one alias: the CLI value needs no quoting then.
    type = "double".equals(type) ? "double precision" : type;
  }

  /** The path's segments. */
  public List<String> segments() {
    return List.of(path.split("\\.", -1));
  }

  /** Every reason this column cannot work, each prefixed by {@code where}. */
  public List<String> problems(String where) {
    List<String> problems = new ArrayList<>();
    if (name == null || name.isEmpty()) {
      problems.add(where + ": a column needs a name");
    } else {
      if (name.indexOf('\0') >= 0) {
        problems.add(where + ": column name cannot contain NUL");
      }
      if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
        problems.add(where + ": column name '" + name + "' is longer than " + MAX_NAME_BYTES + " bytes");
      }
      if (TABLE_COLUMNS.contains(name)) {
        problems.add(where + ": column name '" + name + "' is reserved (" + sorted(TABLE_COLUMNS) + ")");
      }
      if (SYSTEM_COLUMNS.contains(name)) {
        problems.add(where + ": column name '" + name + "' is a PostgreSQL system column name ("
            + sorted(SYSTEM_COLUMNS) + "), which no table column may have; choose another name");
      }
    }
    if (type == null || !TYPES.contains(type)) {
      problems.add(where + ": type must be one of " + String.join(", ", TYPES) + ", got "
          + (type == null ? "nothing" : "'" + type + "'"));
    }
    if (path == null || path.isEmpty()) {
      problems.add(where + ": a column needs a path in the document");
    } else if (segments().stream().anyMatch(String::isEmpty)) {
      problems.add(where + ": path '" + path + "' has an empty segment");
    }
    return problems;
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new HashSet<>(a);
    all.addAll(b);
    return Set.copyOf(all);
  }

  private static String sorted(Set<String> names) {
    return String.join(", ", names.stream().sorted().toList());
  }
}
