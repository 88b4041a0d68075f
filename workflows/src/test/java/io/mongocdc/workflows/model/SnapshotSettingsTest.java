package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotSettingsTest {

  @Test
  void defaultsCopyInPartitionsOfAHundredThousandFourAtATime() {
    SnapshotSettings d = SnapshotSettings.defaults();
    assertTrue(d.enabled());
    assertEquals(100_000, d.documentsPerPartition());
    assertEquals(4, d.parallelPartitions());
    assertEquals("{}", d.filterFor("orders"));
    assertEquals(List.of(), d.problems());
  }

  @Test
  void outOfRangeValuesAndFiltersThatAreNotObjectsAreNamed() {
    SnapshotSettings bad = new SnapshotSettings(true, 0, 65, Map.of("orders", "[1]", "items", "{oops"));
    List<String> problems = bad.problems();
    assertTrue(problems.contains("snapshotDocumentsPerPartition must be between 1 and 100000000, got 0"), problems.toString());
    assertTrue(problems.contains("snapshotParallelPartitions must be between 1 and 64, got 65"), problems.toString());
    assertTrue(problems.contains("snapshotFilters.orders must be a JSON object such as {\"status\": \"active\"}"),
        problems.toString());
    assertTrue(problems.contains("snapshotFilters.items must be a JSON object such as {\"status\": \"active\"}"),
        problems.toString());
  }

  @Test
  void anEditMergesFiltersAndAnEmptyFilterRemovesOne() {
    SnapshotSettings start = new SnapshotSettings(true, 10, 2, Map.of("orders", "{\"a\": 1}", "items", "{\"b\": 2}"));
    EditRequest edit = EditRequest.fromJson(Map.of("snapshot", false, "snapshotParallelPartitions", 8,
        "snapshotFilters", Map.of("orders", "{}", "users", Map.of("c", 3))));

    SnapshotSettings edited = start.apply(edit);

    assertEquals(new SnapshotSettings(false, 10, 8, Map.of("items", "{\"b\": 2}", "users", "{\"c\":3}")), edited);
  }

  @Test
  void wrongTypesInAnEditAreNamed() {
    InvalidEditException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidEditException.class,
        () -> EditRequest.fromJson(Map.of("snapshot", "yes", "splitLargeEvents", 1, "snapshotFilters", List.of("x"),
            "addCollections", "items")));
    assertTrue(e.getMessage().contains("snapshot must be true or false, got \"yes\""), e.getMessage());
    assertTrue(e.getMessage().contains("splitLargeEvents must be true or false, got 1"), e.getMessage());
    assertTrue(e.getMessage().contains("snapshotFilters must be an object of collection: filter"), e.getMessage());
    assertTrue(e.getMessage().contains("addCollections must be a list of strings"), e.getMessage());
  }
}
