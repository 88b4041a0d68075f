package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The settings table of docs/operations.md has one row per mirror setting, saying what the declaration says. */
class SettingsDocumentedTest {

  private static final Path OPERATIONS = Path.of("..", "docs", "operations.md");

  @Test
  void everySettingHasARowAndEveryRowIsASetting() throws IOException {
    Map<String, List<String>> rows = settingsTable();
    List<String> declared = MirrorSettings.SETTINGS.stream().map(MirrorSetting::name).toList();
    assertEquals(declared, List.copyOf(rows.keySet()),
        "docs/operations.md, \"Edit settings\": one row per setting, in the order of MirrorSettings.SETTINGS");
  }

  @Test
  void eachRowNamesTheOptionsAllowedValuesAndDefaultOfItsSetting() throws IOException {
    Map<String, List<String>> rows = settingsTable();
    for (MirrorSetting<?> setting : MirrorSettings.SETTINGS) {
      List<String> row = rows.get(setting.name());
      assertNotNull(row, "no row for " + setting.name());
      for (String option : setting.options()) {
        assertTrue(row.get(1).contains("`" + option), setting.name() + ": the row does not name " + option);
      }
      String allowed = setting.type().allowed();
      if (setting.isStored() && allowed != null) {
        assertTrue(row.get(2).startsWith(allowed),
            setting.name() + ": allowed should start with '" + allowed + "', is '" + row.get(2) + "'");
      }
      assertEquals(setting.defaultText(), row.get(3), setting.name() + ": default");
    }
  }

  /** Field name (without backticks) to the row's cells: field, option, allowed, default. */
  private static Map<String, List<String>> settingsTable() throws IOException {
    List<String> lines = Files.readAllLines(OPERATIONS);
    int heading = lines.indexOf("## Edit settings");
    assertTrue(heading >= 0, "docs/operations.md has no \"## Edit settings\" section");
    Map<String, List<String>> rows = new LinkedHashMap<>();
    boolean inTable = false;
    for (String line : lines.subList(heading + 1, lines.size())) {
      if (line.startsWith("## ")) {
        break;
      }
      if (line.startsWith("| field |")) {
        inTable = true;
      } else if (inTable && line.startsWith("| `")) {
        List<String> cells = List.of(line.substring(2, line.length() - 2).split(" \\| ", -1));
        assertEquals(4, cells.size(), "a settings row has four cells: " + line);
        rows.put(cells.get(0).replace("`", ""), cells);
      } else if (inTable && !line.startsWith("|")) {
        break;
      }
    }
    return rows;
  }
}
