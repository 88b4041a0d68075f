package io.mongocdc.workflows.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a mirror copies the documents that already exist before its change stream takes over.
 *
 * <p>Every component may be null in JSON (histories written before snapshots existed, or an
 * operator's payload that leaves it out): null means the default below.
 *
 * <p>Each component is a mirror setting, declared (with its default and limits) in {@link
 * MirrorSettings#SETTINGS}.
 *
 * @param enabled copy existing documents when the mirror is created and when a collection is
 *     added; off, only changes from the starting point are replicated
 * @param documentsPerPartition target documents per partition, one activity each
 * @param parallelPartitions partitions copied at the same time, over all collections
 * @param filters per collection, a MongoDB query (Extended JSON object) restricting which
 *     documents the snapshot copies; changes after the starting point are replicated whatever
 *     the filter says
 */
public record SnapshotSettings(
    Boolean enabled, Integer documentsPerPartition, Integer parallelPartitions, Map<String, String> filters) {

  // Deterministic (no I/O): only checks that a filter is a JSON object; the worker parses it as
  // Extended JSON when the mirror is validated.
  private static final ObjectMapper JSON = new ObjectMapper();

  public SnapshotSettings {
    enabled = enabled == null ? MirrorSettings.SNAPSHOT.defaultValue() : enabled;
    documentsPerPartition = documentsPerPartition == null
        ? MirrorSettings.SNAPSHOT_DOCUMENTS_PER_PARTITION.defaultValue() : documentsPerPartition;
    parallelPartitions = parallelPartitions == null
        ? MirrorSettings.SNAPSHOT_PARALLEL_PARTITIONS.defaultValue() : parallelPartitions;
    // Sorted by collection: merged from edits over time, and iterated by validation and JSON.
    filters = filters == null ? Map.of() : DeterministicMaps.sorted(filters);
  }

  public static SnapshotSettings defaults() {
    return new SnapshotSettings(null, null, null, null);
  }

  /** No snapshot: only changes from the starting point are replicated. */
  public static SnapshotSettings off() {
    return new SnapshotSettings(false, null, null, null);
  }

  /** The filter for a collection: an Extended JSON object, {@code {}} when there is none. */
  public String filterFor(String collection) {
    return filters.getOrDefault(collection, "{}");
  }

  public SnapshotSettings withEnabled(boolean value) {
    return new SnapshotSettings(value, documentsPerPartition, parallelPartitions, filters);
  }

  public SnapshotSettings withDocumentsPerPartition(int value) {
    return new SnapshotSettings(enabled, value, parallelPartitions, filters);
  }

  public SnapshotSettings withParallelPartitions(int value) {
    return new SnapshotSettings(enabled, documentsPerPartition, value, filters);
  }

  /** Every reason these settings cannot work; empty when they can. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    MirrorSettings.SNAPSHOT_DOCUMENTS_PER_PARTITION.check(documentsPerPartition, problems);
    MirrorSettings.SNAPSHOT_PARALLEL_PARTITIONS.check(parallelPartitions, problems);
    problems.addAll(filterProblems());
    return problems;
  }

  /** Every reason the filters cannot work; empty when they can. */
  List<String> filterProblems() {
    List<String> problems = new ArrayList<>();
    filters.forEach((collection, filter) -> {
      if (collection == null || collection.isBlank()) {
        problems.add("snapshotFilters: a filter needs a collection name");
      }
      if (!isJsonObject(filter)) {
        problems.add("snapshotFilters." + collection + " must be a JSON object such as {\"status\": \"active\"}");
      }
    });
    return problems;
  }

  /** These settings with an edit's fields applied. */
  public SnapshotSettings apply(EditRequest edit) {
    return MirrorSettings.defaults().withSnapshot(this).apply(edit).snapshot();
  }

  /**
   * These settings with {@code edits} merged into the filters (null: none): {@code "{}"} removes a
   * collection's filter; it is stored as no filter at all.
   */
  SnapshotSettings withFilters(Map<String, String> edits) {
    if (edits == null) {
      return this;
    }
    Map<String, String> merged = new LinkedHashMap<>(filters);
    edits.forEach((collection, filter) -> {
      if (filter == null || filter.isBlank() || filter.strip().equals("{}")) {
        merged.remove(collection);
      } else {
        merged.put(collection, filter);
      }
    });
    return new SnapshotSettings(enabled, documentsPerPartition, parallelPartitions, merged);
  }

  private static boolean isJsonObject(String text) {
    if (text == null) {
      return false;
    }
    try {
      JsonNode node = JSON.readTree(text);
      return node != null && node.isObject();
    } catch (JsonProcessingException e) {
      return false;
    }
  }
}
