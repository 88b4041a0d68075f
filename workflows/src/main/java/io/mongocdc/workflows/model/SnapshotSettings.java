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
 * @param enabled copy existing documents when the mirror is created and when a collection is
 *     added (default true); off, only changes from the starting point are replicated
 * @param documentsPerPartition target documents per partition, one activity each (default
 *     100 000)
 * @param parallelPartitions partitions copied at the same time, over all collections (default 4)
 * @param filters per collection, a MongoDB query (Extended JSON object) restricting which
 *     documents the snapshot copies; changes after the starting point are replicated whatever
 *     the filter says
 */
public record SnapshotSettings(
    Boolean enabled, Integer documentsPerPartition, Integer parallelPartitions, Map<String, String> filters) {

  public static final boolean DEFAULT_ENABLED = true;
  public static final int DEFAULT_DOCUMENTS_PER_PARTITION = 100_000;
  public static final int DEFAULT_PARALLEL_PARTITIONS = 4;

  static final MirrorSettings.Range DOCUMENTS_PER_PARTITION =
      new MirrorSettings.Range("snapshotDocumentsPerPartition", 1, 100_000_000);
  static final MirrorSettings.Range PARALLEL_PARTITIONS = new MirrorSettings.Range("snapshotParallelPartitions", 1, 64);

  // Deterministic (no I/O): only checks that a filter is a JSON object; the worker parses it as
  // Extended JSON when the mirror is validated.
  private static final ObjectMapper JSON = new ObjectMapper();

  public SnapshotSettings {
    enabled = enabled == null ? DEFAULT_ENABLED : enabled;
    documentsPerPartition = documentsPerPartition == null ? DEFAULT_DOCUMENTS_PER_PARTITION : documentsPerPartition;
    parallelPartitions = parallelPartitions == null ? DEFAULT_PARALLEL_PARTITIONS : parallelPartitions;
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

  /** Every reason these settings cannot work; empty when they can. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    DOCUMENTS_PER_PARTITION.check(documentsPerPartition, problems);
    PARALLEL_PARTITIONS.check(parallelPartitions, problems);
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

  public SnapshotSettings apply(EditRequest edit) {
    Map<String, String> merged = new LinkedHashMap<>(filters);
    if (edit.snapshotFilters() != null) {
      // "{}" removes a collection's filter; it is stored as no filter at all.
      edit.snapshotFilters().forEach((collection, filter) -> {
        if (filter == null || filter.isBlank() || filter.strip().equals("{}")) {
          merged.remove(collection);
        } else {
          merged.put(collection, filter);
        }
      });
    }
    return new SnapshotSettings(
        edit.snapshot() != null ? edit.snapshot() : enabled,
        edit.snapshotDocumentsPerPartition() != null ? edit.snapshotDocumentsPerPartition() : documentsPerPartition,
        edit.snapshotParallelPartitions() != null ? edit.snapshotParallelPartitions() : parallelPartitions,
        merged);
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
