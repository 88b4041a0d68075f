package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Each batch figure is declared once, in {@link BatchFigures#DECLARED}, and the batch figures table
 * of docs/operations.md says what each declaration says: its unit, whether a retry counts it over
 * the batch's attempts, how two values combine, where it is shown and what it means.
 */
class BatchFiguresDeclaredTest {

  private static final Path OPERATIONS = Path.of("..", "docs", "operations.md");

  @Test
  void everyConstantIsDeclaredOnceUnderItsOwnName() throws IllegalAccessException {
    List<BatchFigure<?>> constants = new ArrayList<>();
    for (Field field : BatchFigures.class.getDeclaredFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == BatchFigure.class) {
        constants.add((BatchFigure<?>) field.get(null));
        assertEquals(field.getName(), field.get(null).toString().replaceAll("([A-Z])", "_$1").toUpperCase(),
            "the constant is named after its figure");
      }
    }
    assertEquals(Set.copyOf(constants), Set.copyOf(BatchFigures.DECLARED), "every BatchFigure constant is DECLARED");
    Set<String> names = new HashSet<>();
    Set<String> columns = new HashSet<>();
    Set<String> metrics = new HashSet<>();
    for (BatchFigure<?> figure : BatchFigures.DECLARED) {
      assertTrue(names.add(figure.name()), "declared twice: " + figure.name());
      assertTrue(figure.column() == null || columns.add(figure.column()), "two figures in column " + figure.column());
      assertTrue(figure.metric() == null || metrics.add(figure.metric()), "two figures count " + figure.metric());
      assertTrue(!figure.doc().isBlank() && !figure.unit().isBlank(), figure.name() + " has a doc and a unit");
    }
  }

  @Test
  void statusNamesEveryTotalledCountOrShowsItInItsOwnWords() {
    // The status text names these in lines of their own (history tables, drift per table and column).
    Set<BatchFigure<?>> ownWords = Set.of(BatchFigures.HISTORY_ROWS_APPENDED, BatchFigures.HISTORY_ROWS_PRUNED,
        BatchFigures.COLUMN_DRIFT);
    for (BatchFigure<?> figure : BatchFigures.DECLARED) {
      if (figure.isTotalled()) {
        assertTrue(figure.label() != null ^ ownWords.contains(figure),
            figure.name() + ": a totalled figure has a status label, unless status shows it in its own words");
      }
    }
  }

  @Test
  void theDocsTableHasOneRowPerFigureSayingWhatItsDeclarationSays() throws IOException {
    List<String> expected = Stream.concat(Stream.of(HEADER, "| --- | --- | --- | --- | --- | --- |"),
        BatchFigures.DECLARED.stream().map(BatchFiguresDeclaredTest::row)).toList();
    assertEquals(String.join("\n", expected), String.join("\n", figuresTable()),
        "docs/operations.md, \"### Batch figures\": one row per figure, in the order of BatchFigures.DECLARED");
  }

  private static final String HEADER = "| figure | unit | attempts | combined | shown in | meaning |";

  /** The row the docs table has for {@code figure}. */
  private static String row(BatchFigure<?> figure) {
    List<String> shown = new ArrayList<>();
    if (figure.isTotalled()) {
      shown.add(figure.label() == null ? "status `totals`" : "status `totals` (\"" + figure.label() + "\")");
    }
    if (figure.metric() != null) {
      shown.add("`" + figure.metric() + "_total" + (figure.metricTag() == null ? "" : "{" + figure.metricTag() + "}")
          + "`");
    }
    if (figure.column() != null) {
      shown.add("`batches." + figure.column() + "`");
    }
    return "| `" + figure.name() + "` | " + figure.unit() + " | " + (figure.isOverAttempts() ? "all" : "last") + " | "
        + figure.type().combination() + " | " + (shown.isEmpty() ? "-" : String.join("; ", shown)) + " | " + figure.doc()
        + " |";
  }

  private static List<String> figuresTable() throws IOException {
    List<String> lines = Files.readAllLines(OPERATIONS);
    int heading = lines.indexOf("### Batch figures");
    assertTrue(heading >= 0, "docs/operations.md has no \"### Batch figures\" section");
    List<String> table = new ArrayList<>();
    for (String line : lines.subList(heading + 1, lines.size())) {
      if (line.startsWith("#")) {
        break;
      }
      if (line.startsWith(HEADER) || !table.isEmpty() && line.startsWith("|")) {
        table.add(line);
      } else if (!table.isEmpty()) {
        break;
      }
    }
    return table;
  }
}
