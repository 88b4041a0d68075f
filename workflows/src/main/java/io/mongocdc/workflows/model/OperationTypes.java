package io.mongocdc.workflows.model;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The change stream's {@code operationType} names as settings see them: the four that change
 * documents, the four control events the mirror acts on by {@link ControlEventPolicy}, and any
 * other name a server may send (expanded events such as {@code createIndexes}, or types of servers
 * to come), which {@link UnknownEventPolicy} governs.
 */
public final class OperationTypes {

  /** The types that change documents. */
  public static final List<String> DATA = List.of("insert", "update", "replace", "delete");
  /** The types that change the stream itself; their own policy decides what happens. */
  public static final List<String> CONTROL = List.of("drop", "rename", "dropDatabase", "invalidate");
  /** What an operation type looks like: servers name them in camel case ({@code createIndexes}). */
  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9]{0,63}");

  private OperationTypes() {}

  /**
   * The rule of {@code excludedOperations}: operation type names, none of them a control event,
   * and not every data type (that would replicate nothing).
   */
  static void checkExcluded(String name, List<String> values, List<String> problems) {
    for (String value : values) {
      if (value == null || !NAME.matcher(value).matches()) {
        problems.add(name + ": '" + value + "' is not an operation type (letters and digits, such as insert or "
            + "createIndexes)");
      } else if (CONTROL.contains(value)) {
        problems.add(name + ": '" + value + "' is a control event, which controlEventPolicy governs; it cannot be"
            + " excluded");
      }
    }
    if (Set.copyOf(values.stream().filter(v -> v != null).toList()).containsAll(DATA)) {
      problems.add(name + ": excluding every data operation type (" + String.join(", ", DATA)
          + ") would replicate nothing");
    }
  }
}
