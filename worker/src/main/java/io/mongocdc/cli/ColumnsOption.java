package io.mongocdc.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.InvalidEditException;
import io.mongocdc.workflows.model.TypedColumn;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the typed column options: {@code --columns COLLECTION:NAME=TYPE:PATH[,NAME=TYPE:PATH...]}
 * (one per collection, repeatable), {@code --columns-file} (a JSON object of collection: list of
 * {name, type, path}), and the {@code COLLECTION:COLUMN} values of {@code --index} and {@code
 * --remove-column}. Shapes only: names, types and paths are validated with the other settings.
 */
final class ColumnsOption {

  private static final ObjectMapper JSON = new ObjectMapper();

  private ColumnsOption() {}

  /** The columns of {@code --columns} values and a {@code --columns-file}, by collection; null when neither. */
  static Map<String, List<TypedColumn>> columns(List<String> values, Path file) {
    if (values == null && file == null) {
      return null;
    }
    Map<String, List<TypedColumn>> columns = new LinkedHashMap<>();
    if (file != null) {
      columns.putAll(fromFile(file));
    }
    if (values != null) {
      for (String value : values) {
        int colon = value.indexOf(':');
        if (colon <= 0) {
          throw invalid("--columns", value, "COLLECTION:NAME=TYPE:PATH[,NAME=TYPE:PATH...]");
        }
        String collection = value.substring(0, colon);
        List<TypedColumn> list = new ArrayList<>(columns.getOrDefault(collection, List.of()));
        for (String column : value.substring(colon + 1).split(",", -1)) {
          int eq = column.indexOf('=');
          int typeEnd = eq < 0 ? -1 : column.indexOf(':', eq);
          if (eq <= 0 || typeEnd < 0) {
            throw invalid("--columns", value, "COLLECTION:NAME=TYPE:PATH[,NAME=TYPE:PATH...]");
          }
          list.add(new TypedColumn(column.substring(0, eq).strip(), column.substring(eq + 1, typeEnd).strip(),
              column.substring(typeEnd + 1).strip()));
        }
        columns.put(collection, list);
      }
    }
    return columns;
  }

  /** {@code COLLECTION:COLUMN} values grouped by collection; null when none. */
  static Map<String, List<String>> byCollection(String option, List<String> values) {
    if (values == null) {
      return null;
    }
    Map<String, List<String>> grouped = new LinkedHashMap<>();
    for (String value : values) {
      int colon = value.indexOf(':');
      if (colon <= 0 || colon == value.length() - 1) {
        throw invalid(option, value, "COLLECTION:COLUMN");
      }
      grouped.computeIfAbsent(value.substring(0, colon), c -> new ArrayList<>()).add(value.substring(colon + 1));
    }
    return grouped;
  }

  private static Map<String, List<TypedColumn>> fromFile(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new CliException("--columns-file " + file + ": no such file", ExitCodes.INVALID);
    } catch (IOException e) {
      throw new CliException("--columns-file " + file + " cannot be read: " + e, ExitCodes.INVALID);
    }
    Object json;
    try {
      json = JSON.readValue(text, Object.class);
    } catch (JsonProcessingException e) {
      throw new CliException("--columns-file " + file + " is not JSON: " + e.getOriginalMessage(), ExitCodes.INVALID);
    }
    try {
      return EditRequest.fromJson(Map.of("columns", json)).columns();
    } catch (InvalidEditException e) {
      throw new CliException("--columns-file " + file + ": " + String.join("; ", e.problems()), ExitCodes.INVALID);
    }
  }

  private static CliException invalid(String option, String value, String shape) {
    return new CliException(option + " '" + value + "' must look like " + shape, ExitCodes.INVALID);
  }
}
