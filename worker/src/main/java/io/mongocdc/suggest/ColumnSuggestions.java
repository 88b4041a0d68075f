package io.mongocdc.suggest;

import java.util.List;

/**
 * What a sample of one collection suggests.
 *
 * @param collection the collection sampled
 * @param documents the documents sampled
 * @param paths every path seen, in the order first seen (a document's fields after it)
 * @param notes what was seen but is not in {@code paths}, and why
 */
public record ColumnSuggestions(String collection, long documents, List<SuggestedColumn> paths, List<String> notes) {

  public ColumnSuggestions {
    paths = List.copyOf(paths);
    notes = List.copyOf(notes);
  }

  /** The paths a column is proposed for. */
  public List<SuggestedColumn> proposed() {
    return paths.stream().filter(SuggestedColumn::proposed).toList();
  }
}
