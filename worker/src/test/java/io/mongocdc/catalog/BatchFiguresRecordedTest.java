package io.mongocdc.catalog;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.workflows.model.BatchFigure;
import io.mongocdc.workflows.model.BatchFigures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The catalog columns batch figures declare are columns of {@code batches} (as the migrations
 * define it: the jOOQ classes are generated from them), and docs/catalog.md names each one.
 */
class BatchFiguresRecordedTest {

  @Test
  void everyDeclaredColumnIsABatchesColumnTheCatalogDocsName() throws IOException {
    String batchesRow = Files.readAllLines(Path.of("..", "docs", "catalog.md")).stream()
        .filter(line -> line.startsWith("| `batches` |")).findFirst().orElseThrow();
    for (BatchFigure<?> figure : BatchFigures.DECLARED) {
      if (figure.column() != null) {
        BatchHistory.column(figure); // throws for a column batches does not have
        assertTrue(batchesRow.contains("`" + figure.column() + "`"),
            "docs/catalog.md, table batches, does not name " + figure.column() + " (" + figure.name() + ")");
      }
    }
  }
}
