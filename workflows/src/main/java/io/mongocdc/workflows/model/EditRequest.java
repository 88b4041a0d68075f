package io.mongocdc.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A change of settings asked by an operator: the value of each {@link MirrorSetting} it sets;
 * the ones it leaves alone are absent.
 *
 * <p>Edits arrive as a plain JSON object ({@code {"batchSize": 5000}}), which Temporal hands the
 * workflow as a map; {@link #fromJson} turns it into an edit, naming every unknown field and
 * every value of the wrong type, so a typo is rejected instead of silently ignored. The fields are
 * {@link MirrorSettings#SETTINGS}; an edit's JSON (in workflow history, status, the CLI) is the
 * object of the fields it sets, {@link #toJson}.
 *
 * <p>Every field but {@code addCollections} changes {@link MirrorSettings}; {@code
 * addCollections} extends the mirror's collections: each added collection is snapshotted (when
 * snapshots are on) and then replicated from the checkpoint the snapshot started at, with no gap.
 * {@code resyncCollections} copies replicated collections again from the checkpoint, then deletes
 * their rows the copy did not see.
 * {@code snapshotFilters} merges into the filters in effect; a filter of {@code "{}"} removes one.
 * {@code history} merges likewise: {@code {"orders": true}} turns a collection's history table on,
 * {@code false} off (the table and its rows stay).
 * {@code columns} adds typed columns per collection, or redefines them by name ({@code
 * {"orders": [{"name": "status", "type": "text", "path": "status"}]}}); {@code removeColumns}
 * ({@code {"orders": ["status"]}}) removes them from the mirror, their data kept in the table
 * unless {@code dropColumnData} is true; {@code indexes} ({@code {"orders": ["status"]}}) adds
 * indexes on typed columns.
 * {@code fieldRules} ({@code {"orders": {"exclude": ["customer.address"], "hash": ["customer.email"]}}})
 * gives paths a rule; {@code removeFieldRules} ({@code {"orders": ["customer.email"]}}) takes rules
 * away.
 */
public final class EditRequest {

  /** The fields an edit may set, in the order they are documented. */
  public static final List<String> FIELDS = MirrorSettings.SETTINGS.stream().map(MirrorSetting::name).toList();

  /**
   * Setting to value, in the order of {@link MirrorSettings#SETTINGS}; no null values. Not a JSON
   * property: the JSON is {@link #toJson}, read by {@link #fromHistory}.
   */
  @JsonIgnore
  private final Map<MirrorSetting<?>, Object> values;

  private EditRequest(Map<MirrorSetting<?>, Object> values) {
    this.values = values;
  }

  /** An edit setting nothing yet; add values with {@link #with}. */
  public static EditRequest none() {
    return new EditRequest(Map.of());
  }

  /** This edit with {@code setting} set to {@code value} (null: left alone). */
  public <T> EditRequest with(MirrorSetting<T> setting, T value) {
    Map<MirrorSetting<?>, Object> changed = new LinkedHashMap<>();
    for (MirrorSetting<?> each : MirrorSettings.SETTINGS) {
      Object kept = each == setting ? copied(value) : values.get(each);
      if (kept != null) {
        changed.put(each, kept);
      }
    }
    return new EditRequest(Collections.unmodifiableMap(changed));
  }

  /** The value this edit gives {@code setting}; null when it leaves it alone. */
  @SuppressWarnings("unchecked")
  public <T> T get(MirrorSetting<T> setting) {
    return (T) values.get(setting);
  }

  public List<String> addCollections() {
    return get(MirrorSettings.ADD_COLLECTIONS);
  }

  public List<String> resyncCollections() {
    return get(MirrorSettings.RESYNC_COLLECTIONS);
  }

  public Map<String, String> snapshotFilters() {
    return get(MirrorSettings.SNAPSHOT_FILTERS);
  }

  public Map<String, Boolean> history() {
    return get(MirrorSettings.HISTORY);
  }

  public Map<String, List<TypedColumn>> columns() {
    return get(MirrorSettings.COLUMNS);
  }

  public Map<String, List<String>> removeColumns() {
    return get(MirrorSettings.REMOVE_COLUMNS);
  }

  public Boolean dropColumnData() {
    return get(MirrorSettings.DROP_COLUMN_DATA);
  }

  public Map<String, List<String>> indexes() {
    return get(MirrorSettings.INDEXES);
  }

  public Map<String, FieldRules> fieldRules() {
    return get(MirrorSettings.FIELD_RULES);
  }

  public Map<String, List<String>> removeFieldRules() {
    return get(MirrorSettings.REMOVE_FIELD_RULES);
  }

  /** Whether this edit adds or removes field rules. */
  public boolean changesFieldRules() {
    return fieldRules() != null || removeFieldRules() != null;
  }

  /** An edit that changes only the settings this one changes (no collections added). */
  public EditRequest settingsOnly() {
    return with(MirrorSettings.ADD_COLLECTIONS, null);
  }

  /** Whether this edit adds, removes or indexes typed columns. */
  public boolean changesColumns() {
    return columns() != null || removeColumns() != null || indexes() != null;
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
    List<String> problems = new ArrayList<>();
    EditRequest edit = bind(fields, problems);
    if (problems.isEmpty() && edit.changesNothing()) {
      problems.add("the edit changes nothing; editable fields: " + String.join(", ", FIELDS));
    }
    if (!problems.isEmpty()) {
      throw new InvalidEditException(problems);
    }
    return edit;
  }

  /**
   * Reads an edit as workflow history holds it (written by {@link #toJson}, or by the record this
   * class was, with every field and nulls for the ones not set).
   */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static EditRequest fromHistory(Map<String, Object> json) {
    List<String> problems = new ArrayList<>();
    EditRequest edit = bind(json, problems);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return edit;
  }

  private static EditRequest bind(Map<?, ?> fields, List<String> problems) {
    Map<String, Object> body = new LinkedHashMap<>();
    fields.forEach((field, value) -> body.put(String.valueOf(field), value));
    for (String field : body.keySet()) {
      if (!FIELDS.contains(field)) {
        problems.add("unknown field '" + field + "' (editable: " + String.join(", ", FIELDS) + ")");
      }
    }
    EditRequest edit = none();
    for (MirrorSetting<?> setting : MirrorSettings.SETTINGS) {
      edit = edit.read(setting, body.get(setting.name()), problems);
    }
    return edit;
  }

  private <T> EditRequest read(MirrorSetting<T> setting, Object json, List<String> problems) {
    T value = setting.type().read(setting.name(), json, problems);
    return value == null ? this : with(setting, value);
  }

  /** The JSON object of this edit: only the fields it sets. */
  @JsonValue
  public Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    values.forEach((setting, value) -> json.put(setting.name(), jsonOf(setting, value)));
    return json;
  }

  @SuppressWarnings("unchecked")
  private static <T> Object jsonOf(MirrorSetting<T> setting, Object value) {
    return setting.type().toJson((T) value);
  }

  /** True if it sets no field. */
  public boolean changesNothing() {
    return values.isEmpty();
  }

  /**
   * Values as an edit keeps them: lists copied, maps in the order sent (an edit comes from
   * history, so that order is the same on every replay).
   */
  private static Object copied(Object value) {
    if (value instanceof List<?> list) {
      return List.copyOf(list);
    }
    if (value instanceof Map<?, ?> map) {
      return DeterministicMaps.inOrder(map);
    }
    return value;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof EditRequest edit && values.equals(edit.values);
  }

  @Override
  public int hashCode() {
    return Objects.hash(values);
  }

  @Override
  public String toString() {
    return "EditRequest" + toJson();
  }
}
