package io.mongocdc.cli;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the {@code COLLECTION:PATH[,PATH...]} values of {@code --exclude-fields}, {@code
 * --hash-fields} and {@code --remove-field-rules}. A path never holds a ':' here: an item {@code
 * orders:paid} after {@code orders:note} is one more path of {@code orders}, an item naming
 * another collection the mirror is known to have starts that collection's paths, and any other
 * item with a ':' is refused, rather than read as a path no document has. Shapes only: the paths
 * are validated with the other settings.
 */
final class FieldRulesOption {

  private FieldRulesOption() {}

  /**
   * The paths of {@code values}, by collection (a collection given twice gets both lists); null when none.
   *
   * @param collections the mirror's collections where the command knows them (a mirror created
   *     with its collections named); empty when it does not, and then an item may name only the
   *     collection of its own value
   */
  static Map<String, List<String>> paths(String option, List<String> values, Collection<String> collections) {
    if (values == null) {
      return null;
    }
    Map<String, List<String>> paths = new LinkedHashMap<>();
    for (String value : values) {
      int colon = value.indexOf(':');
      if (colon <= 0 || colon == value.length() - 1) {
        throw new CliException(option + " '" + value + "' must look like COLLECTION:PATH[,PATH...]", ExitCodes.INVALID);
      }
      String collection = value.substring(0, colon);
      boolean first = true;
      for (String item : value.substring(colon + 1).split(",", -1)) {
        String path = item.strip();
        int itemColon = path.indexOf(':');
        if (itemColon >= 0 && !first) {
          String named = path.substring(0, itemColon).strip();
          if (!named.equals(collection) && !collections.contains(named)) {
            throw refused(option, value, "'" + path + "' is not a path of " + collection + " (no path holds a ':')"
                + (collections.isEmpty() ? "" : " and " + named + " is not one of the mirror's collections "
                + collections));
          }
          collection = named;
          path = path.substring(itemColon + 1).strip();
        }
        if (path.indexOf(':') >= 0) {
          throw refused(option, value, "the path '" + path + "' of " + collection + " holds a ':', which no path here"
              + " can");
        }
        paths.computeIfAbsent(collection, c -> new ArrayList<>()).add(path);
        first = false;
      }
    }
    return paths;
  }

  private static CliException refused(String option, String value, String why) {
    return new CliException(option + " '" + value + "': " + why + "; write COLLECTION:PATH[,PATH...] with the"
        + " paths of that collection after its one name (orders:note,paid), and give each collection its own "
        + option, ExitCodes.INVALID);
  }
}
