package io.mongocdc.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the {@code COLLECTION:PATH[,PATH...]} values of {@code --exclude-fields}, {@code
 * --hash-fields} and {@code --remove-field-rules}. Shapes only: the paths are validated with the
 * other settings.
 */
final class FieldRulesOption {

  private FieldRulesOption() {}

  /** The paths of {@code values}, by collection (a collection given twice gets both lists); null when none. */
  static Map<String, List<String>> paths(String option, List<String> values) {
    if (values == null) {
      return null;
    }
    Map<String, List<String>> paths = new LinkedHashMap<>();
    for (String value : values) {
      int colon = value.indexOf(':');
      if (colon <= 0 || colon == value.length() - 1) {
        throw new CliException(option + " '" + value + "' must look like COLLECTION:PATH[,PATH...]", ExitCodes.INVALID);
      }
      List<String> list = paths.computeIfAbsent(value.substring(0, colon), c -> new ArrayList<>());
      for (String path : value.substring(colon + 1).split(",", -1)) {
        list.add(path.strip());
      }
    }
    return paths;
  }
}
