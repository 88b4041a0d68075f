package io.mongocdc.suggest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * Counts, over sampled documents, the kinds of value at each dotted path, and proposes a typed
 * column per path. Pure: documents in, suggestions out, no I/O.
 *
 * <p>Documents are walked into up to {@link SampleLimits#maxDepth}; arrays are not: an array is
 * one value ({@code text[]} when it holds strings, {@code jsonb} otherwise), because an index
 * path such as {@code items.0.sku} reads one element of a list whose length varies, which
 * {@code jsonb_array_elements} on an {@code items} column answers better. The top-level
 * {@code _id} is the table's key column already and is not proposed. Field names a dotted path
 * cannot address (empty, containing a dot, starting with {@code $}, or all digits, which a path
 * reads as an array index) are left out and noted. At most {@value #MAX_PATHS} paths are
 * counted, so memory stays bounded whatever the documents hold (keys that are data, such as
 * per-day maps, make a path per key).
 */
public final class DocumentSample {

  static final int MAX_PATHS = 500;
  private static final int EXAMPLES = 3;

  private final SampleLimits limits;
  private final Map<String, PathTally> paths = new LinkedHashMap<>();
  private final Set<String> unaddressable = new TreeSet<>();
  private long unaddressableFields;
  private long untrackedValues;
  private long documents;

  public DocumentSample(SampleLimits limits) {
    this.limits = limits;
  }

  public void add(BsonDocument document) {
    documents++;
    walk("", document, 1);
  }

  public long documents() {
    return documents;
  }

  private void walk(String prefix, BsonDocument document, int depth) {
    for (Map.Entry<String, BsonValue> field : document.entrySet()) {
      String key = field.getKey();
      if (depth == 1 && key.equals("_id")) {
        continue;
      }
      if (!addressable(key)) {
        unaddressableFields++;
        if (unaddressable.size() < EXAMPLES) {
          unaddressable.add(prefix + key);
        }
        continue;
      }
      String path = prefix + key;
      PathTally tally = paths.get(path);
      if (tally == null) {
        if (paths.size() >= MAX_PATHS) {
          untrackedValues++;
          continue;
        }
        tally = new PathTally();
        paths.put(path, tally);
      }
      BsonValue value = field.getValue();
      tally.add(ValueKind.of(value));
      if (value.isDocument() && depth < limits.maxDepth()) {
        walk(path + ".", value.asDocument(), depth + 1);
      }
    }
  }

  /** What a dotted path can name: a numeric segment is an array index, a dot separates segments. */
  static boolean addressable(String key) {
    return !key.isEmpty() && key.indexOf('.') < 0 && !key.startsWith("$") && !key.chars().allMatch(Character::isDigit);
  }

  /**
   * The suggestions so far.
   *
   * @param reservedNames column names the destination table has already (see
   *     {@code TypedColumn.RESERVED}): no proposed column gets one
   */
  public ColumnSuggestions suggestions(String collection, Set<String> reservedNames) {
    ColumnNames names = new ColumnNames(reservedNames);
    List<SuggestedColumn> columns = new ArrayList<>(paths.size());
    paths.forEach((path, tally) -> {
      boolean descended = depth(path) < limits.maxDepth();
      ProposedType proposed = ProposedType.of(tally.kinds().keySet(), descended);
      Map<ValueKind, Long> kinds = new LinkedHashMap<>();
      tally.kinds().entrySet().stream()
          .sorted(Map.Entry.<ValueKind, Long>comparingByValue(Comparator.reverseOrder())
              .thenComparing(Map.Entry.comparingByKey()))
          .forEach(e -> kinds.put(e.getKey(), e.getValue()));
      String name = proposed.type() == null ? null : names.nameFor(path);
      columns.add(new SuggestedColumn(path, tally.present(), kinds, name, proposed.type(), proposed.note()));
    });
    List<String> notes = new ArrayList<>();
    if (unaddressableFields > 0) {
      notes.add(unaddressableFields + " values under field names a dotted path cannot address (empty, with a dot,"
          + " starting with $, or all digits) were left out, e.g. " + String.join(", ", unaddressable));
    }
    if (untrackedValues > 0) {
      notes.add("only the first " + MAX_PATHS + " paths were counted; " + untrackedValues
          + " values at further paths were left out (lower --max-depth to see fewer, wider columns)");
    }
    return new ColumnSuggestions(collection, documents, columns, notes);
  }

  private static int depth(String path) {
    return (int) path.chars().filter(c -> c == '.').count() + 1;
  }
}
