package io.mongocdc.workflows.model;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A change of settings asked by an operator: each field is null when the edit leaves it alone.
 *
 * <p>Edits arrive as a plain JSON object ({@code {"batchSize": 5000}}), which Temporal hands the
 * workflow as a map; {@link #fromJson} turns it into an edit, naming every unknown field and
 * every value of the wrong type, so a typo is rejected instead of silently ignored.
 *
 * <p>Every field but {@code addCollections} changes {@link MirrorSettings}; {@code
 * addCollections} extends the mirror's collections: each added collection is snapshotted (when
 * snapshots are on) and then replicated from the checkpoint the snapshot started at, with no gap.
 * {@code snapshotFilters} merges into the filters in effect; a filter of {@code "{}"} removes one.
 * {@code history} merges likewise: {@code {"orders": true}} turns a collection's history table on,
 * {@code false} off (the table and its rows stay).
 * {@code columns} adds typed columns per collection, or redefines them by name ({@code
 * {"orders": [{"name": "status", "type": "text", "path": "status"}]}}); {@code removeColumns}
 * ({@code {"orders": ["status"]}}) removes them from the mirror, their data kept in the table
 * unless {@code dropColumnData} is true; {@code indexes} ({@code {"orders": ["status"]}}) adds
 * indexes on typed columns.
 */
public record EditRequest(
    Integer batchSize,
    Integer idleTimeoutSeconds,
    Integer maxBatchDurationSeconds,
    Integer decodeWorkers,
    Integer chunkSize,
    List<String> excludedOperations,
    String controlEventPolicy,
    Integer continueAsNewEveryBatches,
    Boolean splitLargeEvents,
    Boolean snapshot,
    Integer snapshotDocumentsPerPartition,
    Integer snapshotParallelPartitions,
    Map<String, String> snapshotFilters,
    List<String> addCollections,
    String poisonEventPolicy,
    Boolean autoResync,
    String fullDocumentBeforeChange,
    Map<String, Boolean> history,
    Integer historyRetentionDays,
    Integer verifyDocumentsPerSecond,
    Map<String, List<TypedColumn>> columns,
    Map<String, List<String>> removeColumns,
    Boolean dropColumnData,
    Map<String, List<String>> indexes,
    Integer maxVisibilityDelay) {

  /**
   * Each field's JSON name and value, in the order they are documented: the one list of the
   * JSON an edit is sent and shown as (the CLI builds an edit and sends {@link #toJson}).
   */
  private static final List<JsonField> JSON_FIELDS = List.of(
      new JsonField("batchSize", EditRequest::batchSize),
      new JsonField("idleTimeoutSeconds", EditRequest::idleTimeoutSeconds),
      new JsonField("maxBatchDurationSeconds", EditRequest::maxBatchDurationSeconds),
      new JsonField("maxVisibilityDelay", EditRequest::maxVisibilityDelay),
      new JsonField("decodeWorkers", EditRequest::decodeWorkers),
      new JsonField("chunkSize", EditRequest::chunkSize),
      new JsonField("excludedOperations", EditRequest::excludedOperations),
      new JsonField("controlEventPolicy", EditRequest::controlEventPolicy),
      new JsonField("poisonEventPolicy", EditRequest::poisonEventPolicy),
      new JsonField("continueAsNewEveryBatches", EditRequest::continueAsNewEveryBatches),
      new JsonField("splitLargeEvents", EditRequest::splitLargeEvents),
      new JsonField("snapshot", EditRequest::snapshot),
      new JsonField("snapshotDocumentsPerPartition", EditRequest::snapshotDocumentsPerPartition),
      new JsonField("snapshotParallelPartitions", EditRequest::snapshotParallelPartitions),
      new JsonField("snapshotFilters", EditRequest::snapshotFilters),
      new JsonField("autoResync", EditRequest::autoResync),
      new JsonField("verifyDocumentsPerSecond", EditRequest::verifyDocumentsPerSecond),
      new JsonField("fullDocumentBeforeChange", EditRequest::fullDocumentBeforeChange),
      new JsonField("history", EditRequest::history),
      new JsonField("historyRetentionDays", EditRequest::historyRetentionDays),
      new JsonField("addCollections", EditRequest::addCollections),
      new JsonField("columns", EditRequest::columnsJson),
      new JsonField("removeColumns", EditRequest::removeColumns),
      new JsonField("dropColumnData", EditRequest::dropColumnData),
      new JsonField("indexes", EditRequest::indexes));

  /** The fields an edit may set, in the order they are documented. */
  public static final List<String> FIELDS = JSON_FIELDS.stream().map(JsonField::name).toList();

  public EditRequest {
    excludedOperations = excludedOperations == null ? null : List.copyOf(excludedOperations);
    // In the order sent: an edit comes from history, so that order is the same on every replay.
    snapshotFilters = snapshotFilters == null ? null : DeterministicMaps.inOrder(snapshotFilters);
    addCollections = addCollections == null ? null : List.copyOf(addCollections);
    history = history == null ? null : DeterministicMaps.inOrder(history);
    columns = columns == null ? null : DeterministicMaps.inOrder(columns);
    removeColumns = removeColumns == null ? null : DeterministicMaps.inOrder(removeColumns);
    indexes = indexes == null ? null : DeterministicMaps.inOrder(indexes);
  }

  /** An edit without {@code autoResync}, the change history fields, the verify rate and typed columns. */
  public EditRequest(Integer batchSize, Integer idleTimeoutSeconds, Integer maxBatchDurationSeconds,
      Integer decodeWorkers, Integer chunkSize, List<String> excludedOperations, String controlEventPolicy,
      Integer continueAsNewEveryBatches, Boolean splitLargeEvents, Boolean snapshot,
      Integer snapshotDocumentsPerPartition, Integer snapshotParallelPartitions, Map<String, String> snapshotFilters,
      List<String> addCollections, String poisonEventPolicy) {
    this(batchSize, idleTimeoutSeconds, maxBatchDurationSeconds, decodeWorkers, chunkSize, excludedOperations,
        controlEventPolicy, continueAsNewEveryBatches, splitLargeEvents, snapshot, snapshotDocumentsPerPartition,
        snapshotParallelPartitions, snapshotFilters, addCollections, poisonEventPolicy, null, null, null, null, null,
        null, null, null, null, null);
  }

  /** An edit without {@code maxVisibilityDelay}. */
  public EditRequest(Integer batchSize, Integer idleTimeoutSeconds, Integer maxBatchDurationSeconds,
      Integer decodeWorkers, Integer chunkSize, List<String> excludedOperations, String controlEventPolicy,
      Integer continueAsNewEveryBatches, Boolean splitLargeEvents, Boolean snapshot,
      Integer snapshotDocumentsPerPartition, Integer snapshotParallelPartitions, Map<String, String> snapshotFilters,
      List<String> addCollections, String poisonEventPolicy, Boolean autoResync, String fullDocumentBeforeChange,
      Map<String, Boolean> history, Integer historyRetentionDays, Integer verifyDocumentsPerSecond,
      Map<String, List<TypedColumn>> columns, Map<String, List<String>> removeColumns, Boolean dropColumnData,
      Map<String, List<String>> indexes) {
    this(batchSize, idleTimeoutSeconds, maxBatchDurationSeconds, decodeWorkers, chunkSize, excludedOperations,
        controlEventPolicy, continueAsNewEveryBatches, splitLargeEvents, snapshot, snapshotDocumentsPerPartition,
        snapshotParallelPartitions, snapshotFilters, addCollections, poisonEventPolicy, autoResync,
        fullDocumentBeforeChange, history, historyRetentionDays, verifyDocumentsPerSecond, columns, removeColumns,
        dropColumnData, indexes, null);
  }

  /** An edit that changes only the settings this one changes (no collections added). */
  public EditRequest settingsOnly() {
    return new EditRequest(batchSize, idleTimeoutSeconds, maxBatchDurationSeconds, decodeWorkers, chunkSize,
        excludedOperations, controlEventPolicy, continueAsNewEveryBatches, splitLargeEvents, snapshot,
        snapshotDocumentsPerPartition, snapshotParallelPartitions, snapshotFilters, null, poisonEventPolicy,
        autoResync, fullDocumentBeforeChange, history, historyRetentionDays, verifyDocumentsPerSecond, columns,
        removeColumns, dropColumnData, indexes, maxVisibilityDelay);
  }

  /** Whether this edit adds, removes or indexes typed columns. */
  public boolean changesColumns() {
    return columns != null || removeColumns != null || indexes != null;
  }

  /** {@code columns} as JSON objects of name, type and path. */
  private Map<String, Object> columnsJson() {
    if (columns == null) {
      return null;
    }
    Map<String, Object> json = new LinkedHashMap<>();
    columns.forEach((collection, list) -> json.put(collection, list.stream().map(c -> {
      Map<String, Object> column = new LinkedHashMap<>();
      column.put("name", c.name());
      column.put("type", c.type());
      column.put("path", c.path());
      return column;
    }).toList()));
    return json;
  }

  /**
   * Reads an edit from its JSON body as the data converter decoded it (a map for a JSON object).
   * The edit handlers take the body raw, so a body that is not an object reaches this check and
   * gets a plain answer instead of the data converter's.
   *
   * @throws InvalidEditException naming every problem, if the body is missing or not an object,
   *     has unknown fields or values of the wrong type, or changes nothing
   */
  public static EditRequest fromJson(Object json) {
    if (json == null) {
      throw new InvalidEditException(List.of("the edit has no body; send a JSON object such as {\"batchSize\": 5000}"));
    }
    if (!(json instanceof Map<?, ?> fields)) {
      throw new InvalidEditException(List.of(
          "the edit must be a JSON object such as {\"batchSize\": 5000}, got " + JsonText.of(json)));
    }
    Map<String, Object> body = new LinkedHashMap<>();
    fields.forEach((field, value) -> body.put(String.valueOf(field), value));
    List<String> problems = new ArrayList<>();
    for (String field : body.keySet()) {
      if (!FIELDS.contains(field)) {
        problems.add("unknown field '" + field + "' (editable: " + String.join(", ", FIELDS) + ")");
      }
    }
    EditRequest edit = new EditRequest(
        integer(body, "batchSize", problems),
        integer(body, "idleTimeoutSeconds", problems),
        integer(body, "maxBatchDurationSeconds", problems),
        integer(body, "decodeWorkers", problems),
        integer(body, "chunkSize", problems),
        strings(body, "excludedOperations", problems),
        string(body, "controlEventPolicy", problems),
        integer(body, "continueAsNewEveryBatches", problems),
        bool(body, "splitLargeEvents", problems),
        bool(body, "snapshot", problems),
        integer(body, "snapshotDocumentsPerPartition", problems),
        integer(body, "snapshotParallelPartitions", problems),
        filters(body, "snapshotFilters", problems),
        strings(body, "addCollections", problems),
        string(body, "poisonEventPolicy", problems),
        bool(body, "autoResync", problems),
        string(body, "fullDocumentBeforeChange", problems),
        switches(body, "history", problems),
        integer(body, "historyRetentionDays", problems),
        integer(body, "verifyDocumentsPerSecond", problems),
        columns(body, "columns", problems),
        byCollection(body, "removeColumns", problems, "a list of column names", "a list of strings",
            EditRequest::stringList),
        bool(body, "dropColumnData", problems),
        byCollection(body, "indexes", problems, "a list of column names", "a list of strings",
            EditRequest::stringList),
        integer(body, "maxVisibilityDelay", problems));
    if (problems.isEmpty() && edit.changesNothing()) {
      problems.add("the edit changes nothing; editable fields: " + String.join(", ", FIELDS));
    }
    if (!problems.isEmpty()) {
      throw new InvalidEditException(problems);
    }
    return edit;
  }

  /** The JSON object of this edit: only the fields it sets. */
  public Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    for (JsonField field : JSON_FIELDS) {
      Object value = field.value().apply(this);
      if (value != null) {
        json.put(field.name(), value);
      }
    }
    return json;
  }

  /** True if every field is null. */
  public boolean changesNothing() {
    return toJson().isEmpty();
  }

  private record JsonField(String name, Function<EditRequest, Object> value) {}

  private static Integer integer(Map<String, ?> body, String name, List<String> problems) {
    Object value = body.get(name);
    if (value == null) {
      return null;
    }
    if (value instanceof Number number) {
      // JSON has one number type; accept 5000 and 5000.0 but not 2.5 or values beyond int.
      try {
        return new BigDecimal(number.toString()).intValueExact();
      } catch (ArithmeticException | NumberFormatException e) {
        problems.add(name + " must be a whole number within the integer range, got " + number);
        return null;
      }
    }
    problems.add(name + " must be a number, got " + describe(value));
    return null;
  }

  private static Boolean bool(Map<String, ?> body, String name, List<String> problems) {
    Object value = body.get(name);
    if (value == null || value instanceof Boolean) {
      return (Boolean) value;
    }
    problems.add(name + " must be true or false, got " + describe(value));
    return null;
  }

  /**
   * A map from collection to a filter. A filter may be sent as a JSON object or as its text; it
   * is kept as text (the worker parses it as Extended JSON).
   */
  private static Map<String, String> filters(Map<String, ?> body, String name, List<String> problems) {
    return byCollection(body, name, problems, "filter", "a JSON object or its text",
        filter -> filter instanceof String text ? text : filter instanceof Map<?, ?> ? JsonText.of(filter) : null);
  }

  /** A map from collection to a list of typed columns, each a JSON object of name, type and path. */
  private static Map<String, List<TypedColumn>> columns(Map<String, ?> body, String name, List<String> problems) {
    return byCollection(body, name, problems, "a list of {name, type, path}",
        "a list of objects with string fields name, type and path", EditRequest::columnList);
  }

  private static List<TypedColumn> columnList(Object value) {
    if (!(value instanceof List<?> list)) {
      return null;
    }
    List<TypedColumn> columns = new ArrayList<>();
    for (Object each : list) {
      if (!(each instanceof Map<?, ?> column) || !Set.of("name", "type", "path").containsAll(column.keySet())
          || !(column.get("name") instanceof String n) || !(column.get("type") instanceof String t)
          || !(column.get("path") instanceof String p)) {
        return null;
      }
      columns.add(new TypedColumn(n, t, p));
    }
    return columns;
  }

  private static List<String> stringList(Object value) {
    if (value instanceof List<?> list && list.stream().allMatch(String.class::isInstance)) {
      return list.stream().map(String.class::cast).toList();
    }
    return null;
  }

  /** A map from collection to on (true) or off (false). */
  private static Map<String, Boolean> switches(Map<String, ?> body, String name, List<String> problems) {
    return byCollection(body, name, problems, "true or false", "true or false",
        on -> on instanceof Boolean b ? b : null);
  }

  /**
   * A JSON object of collection: value, each value read by {@code read} (null when it has the
   * wrong type, which is a problem naming {@code valueShape}); null when the field is absent.
   */
  private static <V> Map<String, V> byCollection(Map<String, ?> body, String name, List<String> problems,
      String valueName, String valueShape, Function<Object, V> read) {
    Object value = body.get(name);
    if (value == null) {
      return null;
    }
    if (!(value instanceof Map<?, ?> map)) {
      problems.add(name + " must be an object of collection: " + valueName + ", got " + describe(value));
      return null;
    }
    Map<String, V> values = new LinkedHashMap<>();
    map.forEach((collection, each) -> {
      V got = read.apply(each);
      if (got != null) {
        values.put(String.valueOf(collection), got);
      } else {
        problems.add(name + "." + collection + " must be " + valueShape + ", got " + describe(each));
      }
    });
    return values;
  }

  private static String string(Map<String, ?> body, String name, List<String> problems) {
    Object value = body.get(name);
    if (value == null || value instanceof String) {
      return (String) value;
    }
    problems.add(name + " must be a string, got " + describe(value));
    return null;
  }

  private static List<String> strings(Map<String, ?> body, String name, List<String> problems) {
    Object value = body.get(name);
    if (value == null) {
      return null;
    }
    if (value instanceof List<?> list && list.stream().allMatch(String.class::isInstance)) {
      return list.stream().map(String.class::cast).toList();
    }
    problems.add(name + " must be a list of strings, got " + describe(value));
    return null;
  }

  /** A value as the operator typed it: strings quoted, lists and objects as JSON. */
  private static String describe(Object value) {
    return JsonText.of(value);
  }
}
