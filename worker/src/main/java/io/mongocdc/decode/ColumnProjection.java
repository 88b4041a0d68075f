package io.mongocdc.decode;

import java.util.List;
import java.util.Objects;

/**
 * One typed column of a table: where its value is in the document and what type it gets.
 *
 * @param name the column name (unquoted)
 * @param type its type
 * @param path the field names from the document's root; a segment of digits also indexes an array
 */
public record ColumnProjection(String name, ColumnType type, List<String> path) {

  public ColumnProjection {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    path = List.copyOf(path);
    if (path.isEmpty()) {
      throw new IllegalArgumentException("column " + name + " has an empty path");
    }
  }
}
