package io.mongocdc.workflows.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The maps in the model iterate in an order given by their content, never by hashing: workflow
 * code iterates them (validation messages, JSON in history and status), and a replay on another
 * JVM must see the same order. {@code Map.copyOf} changes its order from one JVM run to the next,
 * and a hash map's order is neither sorted nor the order sent, so either fails here.
 */
class ModelMapOrderTest {

  private static final ObjectMapper JSON = JacksonJsonPayloadConverter.newDefaultObjectMapper();

  /** Neither sorted nor in the order a hash map keeps them. */
  private static final List<String> COLLECTIONS = List.of("orders", "customers", "items", "users", "products",
      "invoices", "payments", "shipments", "reviews", "carts", "coupons", "addresses");

  @Test
  void snapshotFiltersIterateSortedByCollectionWhateverOrderTheyCameIn() throws Exception {
    List<String> sorted = COLLECTIONS.stream().sorted().toList();
    SnapshotSettings forward = new SnapshotSettings(true, 10, 2, filters(COLLECTIONS, "{\"a\": 1}"));
    SnapshotSettings backward = new SnapshotSettings(true, 10, 2, filters(reversed(COLLECTIONS), "{\"a\": 1}"));

    assertEquals(sorted, new ArrayList<>(forward.filters().keySet()));
    assertEquals(sorted, new ArrayList<>(backward.filters().keySet()));
    String expected = sorted.stream().map(c -> "\"" + c + "\":\"{\\\"a\\\": 1}\"")
        .collect(Collectors.joining(",", "{\"enabled\":true,\"documentsPerPartition\":10,\"parallelPartitions\":2,"
            + "\"filters\":{", "}}"));
    assertEquals(expected, JSON.writeValueAsString(forward));
    assertEquals(expected, JSON.writeValueAsString(backward));
  }

  @Test
  void problemsWithSnapshotFiltersAreListedInCollectionOrder() {
    List<String> expected = COLLECTIONS.stream().sorted()
        .map(c -> "snapshotFilters." + c + " must be a JSON object such as {\"status\": \"active\"}").toList();
    assertEquals(expected, new SnapshotSettings(true, 10, 2, filters(COLLECTIONS, "[1]")).problems());
    assertEquals(expected, new SnapshotSettings(true, 10, 2, filters(reversed(COLLECTIONS), "[1]")).problems());
  }

  @Test
  void anEditKeepsItsFiltersInTheOrderSent() throws Exception {
    Map<String, Object> body = Map.of("snapshotFilters", filters(COLLECTIONS, "{}"));
    EditRequest edit = EditRequest.fromJson(body);

    assertEquals(COLLECTIONS, new ArrayList<>(edit.snapshotFilters().keySet()));
    @SuppressWarnings("unchecked")
    Map<String, String> sent = (Map<String, String>) edit.toJson().get("snapshotFilters");
    assertEquals(COLLECTIONS, new ArrayList<>(sent.keySet()));
    // As carried over a continue-as-new: written by the data converter, read back.
    EditRequest carried = JSON.readValue(JSON.writeValueAsBytes(edit), EditRequest.class);
    assertEquals(COLLECTIONS, new ArrayList<>(carried.snapshotFilters().keySet()));
  }

  private static Map<String, String> filters(List<String> collections, String filter) {
    Map<String, String> filters = new LinkedHashMap<>();
    collections.forEach(c -> filters.put(c, filter));
    return filters;
  }

  private static List<String> reversed(List<String> list) {
    List<String> copy = new ArrayList<>(list);
    java.util.Collections.reverse(copy);
    return copy;
  }
}
