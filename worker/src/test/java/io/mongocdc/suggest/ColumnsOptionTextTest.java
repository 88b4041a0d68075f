package io.mongocdc.suggest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ColumnsOptionTextTest {

  private static SuggestedColumn column(String path, String name, String type) {
    return new SuggestedColumn(path, 1, Map.of(ValueKind.STRING, 1L), name, type, null);
  }

  private final ColumnSuggestions orders = new ColumnSuggestions("orders", 10, List.of(
      column("status", "status", "text"),
      column("customer", null, null),
      column("total", "total", "double precision"),
      column("tags", "tags", "text[]"),
      column("a,b", "a_b", "bigint")), List.of());

  @Test
  void theOptionListsTheProposedColumnsItCanHold() {
    assertEquals("orders:status=text:status,total=double precision:total,tags=text[]:tags",
        ColumnsOptionText.value(orders));
    assertEquals(List.of("a,b"), ColumnsOptionText.inexpressible(orders).stream().map(SuggestedColumn::path).toList());
  }

  @Test
  void theOptionIsQuotedForAShellWhenItNeedsIt() {
    assertEquals("--columns 'orders:total=double precision:total'",
        ColumnsOptionText.commandLine("orders:total=double precision:total"));
    assertEquals("--columns 'orders:tags=text[]:tags'", ColumnsOptionText.commandLine("orders:tags=text[]:tags"),
        "[] is a glob");
    assertEquals("--columns orders:status=text:status", ColumnsOptionText.commandLine("orders:status=text:status"));
    assertEquals("'it'\\''s'", ColumnsOptionText.shellQuoted("it's"));
  }

  @Test
  void aCollectionTheOptionCannotNameLeavesOnlyTheJson() {
    ColumnSuggestions odd = new ColumnSuggestions("a:b", 1, List.of(column("x", "x", "text")), List.of());
    assertNull(ColumnsOptionText.value(odd));
    assertEquals(1, ColumnsOptionText.inexpressible(odd).size());
  }

  @Test
  void theFileFormHoldsEveryProposedColumn() {
    assertEquals(Map.of("orders", List.of(
            Map.of("name", "status", "type", "text", "path", "status"),
            Map.of("name", "total", "type", "double precision", "path", "total"),
            Map.of("name", "tags", "type", "text[]", "path", "tags"),
            Map.of("name", "a_b", "type", "bigint", "path", "a,b"))),
        ColumnsOptionText.file(orders));
  }
}
