package io.mongocdc.suggest;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One path of the sampled documents and the column proposed for it.
 *
 * @param path the dotted path in the document
 * @param present in how many sampled documents the path was present (null counts as present)
 * @param kinds how many of those values were of each kind, most frequent first
 * @param name the proposed column name, or null when no column is proposed
 * @param type the proposed PostgreSQL type, or null when no column is proposed
 * @param note why the type is what it is, or why there is none (null when plain)
 */
public record SuggestedColumn(String path, long present, Map<ValueKind, Long> kinds, String name, String type,
    String note) {

  public SuggestedColumn {
    kinds = Collections.unmodifiableMap(new LinkedHashMap<>(kinds));
  }

  public boolean proposed() {
    return type != null;
  }
}
