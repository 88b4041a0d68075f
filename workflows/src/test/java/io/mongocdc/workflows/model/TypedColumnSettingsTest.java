package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TypedColumnSettingsTest {

  private static TypedColumn column(String name, String type, String path) {
    return new TypedColumn(name, type, path);
  }

  @Test
  void absentInJsonMeansNone() {
    MirrorSettings settings = JsonInput.read(Map.of("batchSize", 10, "idleTimeoutSeconds", 1,
        "maxBatchDurationSeconds", 1, "decodeWorkers", 1, "chunkSize", 1, "controlEventPolicy", "PAUSE",
        "continueAsNewEveryBatches", 1), MirrorSettings.class, "settings");
    assertEquals(Map.of(), settings.columns().columns());
    assertEquals(List.of(), settings.problems());
  }

  @Test
  void everyBadColumnIsNamed() {
    TypedColumnSettings settings = new TypedColumnSettings(Map.of("orders", List.of(
        column("status", "text", "status"),
        column("status", "text", "other"),
        column("_drift", "text", "x"),
        column("doc", "integer", "a..b"),
        column("x".repeat(64), "jsonb", ""))), Map.of("orders", List.of("nope")));
    assertEquals(List.of(
        "columns.orders[1]: column 'status' is declared twice",
        "columns.orders[2]: column name '_drift' is reserved (_commit_time, _deleted, _drift, _id, _position, "
            + "_raw_doc, _synced_at, doc)",
        "columns.orders[3]: column name 'doc' is reserved (_commit_time, _deleted, _drift, _id, _position, "
            + "_raw_doc, _synced_at, doc)",
        "columns.orders[3]: type must be one of text, bigint, numeric, double precision, boolean, timestamptz, "
            + "uuid, jsonb, text[], got 'integer'",
        "columns.orders[3]: path 'a..b' has an empty segment",
        "columns.orders[4]: column name '" + "x".repeat(64) + "' is longer than 63 bytes",
        "columns.orders[4]: a column needs a path in the document",
        "indexes.orders: 'nope' is not a typed column of orders"), settings.problems());
  }

  /** Issue 36, finding 6: PostgreSQL refuses these names (42701), which no resume could get past. */
  @Test
  void aSystemColumnNameIsRefusedByTheEditWithTheReason() {
    MirrorSettings settings = MirrorSettings.defaults();
    for (String system : List.of("xmin", "ctid", "cmin", "cmax", "xmax", "tableoid")) {
      EditRequest edit = EditRequest.fromJson(Map.of(
          "columns", Map.of("users", List.of(Map.of("name", system, "type", "bigint", "path", "version")))));
      assertEquals(List.of("columns.users[0]: column name '" + system + "' is a PostgreSQL system column name "
          + "(cmax, cmin, ctid, tableoid, xmax, xmin), which no table column may have; choose another name"),
          settings.apply(edit).problems());
    }
    // Names are quoted, so only the exact lower-case names are PostgreSQL's.
    EditRequest upper = EditRequest.fromJson(Map.of(
        "columns", Map.of("users", List.of(Map.of("name", "XMIN", "type", "bigint", "path", "version")))));
    assertEquals(List.of(), settings.apply(upper).problems());
  }

  @Test
  void doubleIsTheOneAlias() {
    assertEquals("double precision", column("p", "double", "p").type());
    assertEquals(List.of(), column("p", "double precision", "items.0.price").problems("c"));
  }

  @Test
  void anEditAddsRedefinesRemovesAndIndexes() {
    MirrorSettings settings = MirrorSettings.defaults().withColumns(new TypedColumnSettings(
        Map.of("orders", List.of(column("status", "text", "status"), column("total", "numeric", "total"))),
        Map.of("orders", List.of("status"))));
    EditRequest edit = EditRequest.fromJson(Map.of(
        "columns", Map.of("orders", List.of(Map.of("name", "total", "type", "double precision", "path", "t"),
            Map.of("name", "placed", "type", "timestamptz", "path", "placedAt"))),
        "removeColumns", Map.of("orders", List.of("status")),
        "indexes", Map.of("orders", List.of("placed"))));
    TypedColumnSettings edited = settings.apply(edit).columns();
    assertEquals(List.of(column("total", "double precision", "t"), column("placed", "timestamptz", "placedAt")),
        edited.of("orders"));
    assertEquals(Map.of("orders", List.of("placed")), edited.indexes());
    assertEquals(List.of(), settings.apply(edit).problems());
    assertTrue(edit.changesColumns());
    assertEquals(edit, EditRequest.fromJson(edit.toJson()));
  }

  @Test
  void aBadColumnsFieldIsRefusedWithItsShape() {
    Map<String, Object> column = new LinkedHashMap<>();
    column.put("name", "x");
    column.put("type", "text");
    InvalidEditException e = assertThrows(InvalidEditException.class, () -> EditRequest.fromJson(Map.of(
        "columns", Map.of("orders", List.of(column)))));
    assertEquals(List.of("columns.orders must be a list of objects with string fields name, type and path, got "
        + "[{\"name\":\"x\",\"type\":\"text\"}]"), e.problems());
  }

  @Test
  void changedSinceNamesAddedRedefinedAndAddedAgainColumnsNotTheMaintainedOnes() {
    TypedColumn version = new TypedColumn("v", "bigint", "version");
    TypedColumn name = new TypedColumn("name", "text", "name");
    TypedColumnSettings before = new TypedColumnSettings(Map.of("users", List.of(version, name)), Map.of());
    TypedColumnSettings after = new TypedColumnSettings(Map.of(
        "users", List.of(new TypedColumn("v", "bigint", "age"), name, new TypedColumn("city", "text", "address.city")),
        "orders", List.of(new TypedColumn("total", "numeric", "total"))), Map.of());

    assertEquals(Map.of("orders", List.of("total"), "users", List.of("v", "city")), after.changedSince(before));
    assertEquals(Map.of(), before.changedSince(before), "nothing changed: nothing to empty");
    TypedColumnSettings removed = new TypedColumnSettings(Map.of("users", List.of(name)), Map.of());
    assertEquals(Map.of("users", List.of("v")), before.changedSince(removed), "added again after its removal");
    assertEquals(Map.of("users", List.of("v")), removed.removedSince(before));
    assertEquals(Map.of(), after.removedSince(before), "a redefinition removes nothing");
  }

  /** Issue 36: duplicate column names in one edit were accepted (the last won), though refused at create. */
  @Test
  void aColumnDeclaredTwiceInOneEditIsRefusedAsAtCreate() {
    EditRequest edit = EditRequest.fromJson(Map.of("columns", Map.of("users", List.of(
        Map.of("name", "v", "type", "bigint", "path", "version"), Map.of("name", "v", "type", "bigint", "path", "age")))));
    assertEquals(List.of("columns.users: column 'v' is declared twice in this edit"),
        TypedColumnSettings.defaults().editProblems(edit));
  }
}
