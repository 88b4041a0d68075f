package io.mongocdc.suggest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The proposed columns as {@code mongo-cdc mirror create} and {@code mirror edit} take them: the
 * option {@code --columns <collection>:<name>=<type>:<path>[,<name>=<type>:<path>...]} and the
 * JSON of {@code --columns-file} ({@code {"orders": [{"name": ..., "type": ..., "path": ...}]}}).
 * A path or collection holding one of the option's separators ({@code , : =}) cannot be written
 * in the option; the JSON form takes every path.
 */
public final class ColumnsOptionText {

  private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9_.,:=/@%+-]+");

  private ColumnsOptionText() {}

  /** Whether {@code text} can stand in the option as a collection or path. */
  public static boolean expressible(String text) {
    return text.indexOf(',') < 0 && text.indexOf(':') < 0 && text.indexOf('=') < 0;
  }

  /**
   * The option's value for the proposed columns that can be written in it.
   *
   * @return null if none can (or the collection cannot)
   */
  public static String value(ColumnSuggestions suggestions) {
    if (!expressible(suggestions.collection())) {
      return null;
    }
    List<String> entries = new ArrayList<>();
    for (SuggestedColumn column : suggestions.proposed()) {
      if (expressible(column.path())) {
        entries.add(column.name() + "=" + column.type() + ":" + column.path());
      }
    }
    return entries.isEmpty() ? null : suggestions.collection() + ":" + String.join(",", entries);
  }

  /** The proposed columns the option cannot hold (their paths have a separator). */
  public static List<SuggestedColumn> inexpressible(ColumnSuggestions suggestions) {
    return suggestions.proposed().stream()
        .filter(c -> !expressible(suggestions.collection()) || !expressible(c.path())).toList();
  }

  /** {@code --columns <value>}, the value quoted for a POSIX shell when it needs it (a space, {@code []}). */
  public static String commandLine(String value) {
    return "--columns " + shellQuoted(value);
  }

  static String shellQuoted(String word) {
    return SHELL_SAFE.matcher(word).matches() ? word : "'" + word.replace("'", "'\\''") + "'";
  }

  /** The content of a {@code --columns-file} with every proposed column, to serialise as JSON. */
  public static Map<String, List<Map<String, String>>> file(ColumnSuggestions suggestions) {
    List<Map<String, String>> columns = new ArrayList<>();
    for (SuggestedColumn column : suggestions.proposed()) {
      Map<String, String> entry = new LinkedHashMap<>();
      entry.put("name", column.name());
      entry.put("type", column.type());
      entry.put("path", column.path());
      columns.add(entry);
    }
    return Map.of(suggestions.collection(), columns);
  }
}
