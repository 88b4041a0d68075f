package io.mongocdc.workflows.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The settings of a mirror an operator may change while it runs (by the {@code edit} update or
 * signal). They apply from the batch after the one in flight.
 *
 * <p>Each setting is declared once, in {@link #SETTINGS}: its JSON name, option, type, allowed
 * values, default and doc. Edit binding, validation, {@link #apply}, {@link #defaults}, the
 * command-line options, the status text and the settings table of {@code docs/operations.md}
 * derive from that list; adding a setting is one entry there, its component here and the code
 * that uses it.
 *
 * <p>Durations are whole seconds so the JSON an operator types stays plain: {@code
 * {"idleTimeoutSeconds": 5}}. Validation lives here, in deterministic code, so the workflow's
 * update validator can reject a bad edit without calling an activity. Components that are null in
 * JSON (histories written before the setting existed) take their setting's default.
 */
public record MirrorSettings(
    int batchSize,
    int idleTimeoutSeconds,
    int maxBatchDurationSeconds,
    int decodeWorkers,
    int chunkSize,
    List<String> excludedOperations,
    ControlEventPolicy controlEventPolicy,
    int continueAsNewEveryBatches,
    boolean splitLargeEvents,
    SnapshotSettings snapshot,
    PoisonEventPolicy poisonEventPolicy,
    Boolean autoResync,
    Integer verifyDocumentsPerSecond,
    ChangeHistorySettings history,
    TypedColumnSettings columns,
    Integer maxVisibilityDelay,
    UnknownEventPolicy unknownEventPolicy,
    FieldRuleSettings fieldRules) {

  private static final SettingType.Whole SECONDS = new SettingType.Whole(1, 3_600);

  public static final MirrorSetting<Integer> BATCH_SIZE = MirrorSetting.stored("batchSize", "--batch-size", "N",
      new SettingType.Whole(1, 10_000_000), 1_000_000, "Change events per batch, at most.",
      MirrorSettings::batchSize, (s, v) -> s.toBuilder().batchSize(v).build());
  public static final MirrorSetting<Integer> IDLE_TIMEOUT_SECONDS = MirrorSetting.stored("idleTimeoutSeconds",
      "--idle-timeout", "SECONDS", SECONDS, 10, "A batch ends after this long without an event.",
      MirrorSettings::idleTimeoutSeconds, (s, v) -> s.toBuilder().idleTimeoutSeconds(v).build());
  public static final MirrorSetting<Integer> MAX_BATCH_DURATION_SECONDS = MirrorSetting.stored(
      "maxBatchDurationSeconds", "--max-batch-duration", "SECONDS", SECONDS, 300,
      "A batch ends after this long in any case.",
      MirrorSettings::maxBatchDurationSeconds, (s, v) -> s.toBuilder().maxBatchDurationSeconds(v).build());
  /**
   * Rows become visible when a sink commits, and the pipeline commits within this delay of reading
   * a change whatever the batch's length, so batches can be long (cheap in workflow history)
   * while the destination stays fresh.
   */
  public static final MirrorSetting<Integer> MAX_VISIBILITY_DELAY = MirrorSetting.stored("maxVisibilityDelay",
      "--max-visibility-delay", "MILLIS", new SettingType.Whole(1, 3_600_000), 1_000,
      "Milliseconds a change read from the stream may wait, at most, before the destination commits it "
          + "and it becomes visible, however long the batch lasts.",
      MirrorSettings::maxVisibilityDelay, (s, v) -> s.toBuilder().maxVisibilityDelay(v).build());
  /**
   * The default, 4, is the pipeline's default too: a mirror's cap within the worker's decode
   * threads ({@code --decode-threads}, the processors), not a guess at the machine a mirror runs on.
   */
  public static final MirrorSetting<Integer> DECODE_WORKERS = MirrorSetting.stored("decodeWorkers",
      "--decode-workers", "N", new SettingType.Whole(1, 256), 4, "Threads decoding events in parallel.",
      MirrorSettings::decodeWorkers, (s, v) -> s.toBuilder().decodeWorkers(v).build());
  public static final MirrorSetting<Integer> CHUNK_SIZE = MirrorSetting.stored("chunkSize", "--chunk-size", "N",
      new SettingType.Whole(1, 100_000), 256, "Events per chunk handed to a decode worker.",
      MirrorSettings::chunkSize, (s, v) -> s.toBuilder().chunkSize(v).build());
  public static final MirrorSetting<List<String>> EXCLUDED_OPERATIONS = MirrorSetting.stored("excludedOperations",
      "--exclude-operations", "OPS", new SettingType.Strings(OperationTypes::checkExcluded),
      List.of(), "Operation types not applied: insert, update, replace, delete, or any other type a server sends "
          + "(createIndexes, ...), passed over; an empty value clears the list.",
      MirrorSettings::excludedOperations, (s, v) -> s.toBuilder().excludedOperations(v).build());
  public static final MirrorSetting<ControlEventPolicy> CONTROL_EVENT_POLICY = MirrorSetting.stored(
      "controlEventPolicy", "--control-event-policy", "POLICY", new SettingType.Choice<>(ControlEventPolicy.class),
      ControlEventPolicy.PAUSE, "PAUSE (stop before drop/rename/dropDatabase/invalidate) or IGNORE.",
      MirrorSettings::controlEventPolicy, (s, v) -> s.toBuilder().controlEventPolicy(v).build());
  public static final MirrorSetting<PoisonEventPolicy> POISON_EVENT_POLICY = MirrorSetting.stored(
      "poisonEventPolicy", "--poison-event-policy", "POLICY", new SettingType.Choice<>(PoisonEventPolicy.class),
      PoisonEventPolicy.FAIL, "FAIL (an event the destination cannot hold or the decoder cannot read fails the mirror, "
          + "naming it) or QUARANTINE (keep it in the catalog's quarantined_events and go on).",
      MirrorSettings::poisonEventPolicy, (s, v) -> s.toBuilder().poisonEventPolicy(v).build());
  public static final MirrorSetting<UnknownEventPolicy> UNKNOWN_EVENT_POLICY = MirrorSetting.stored(
      "unknownEventPolicy", "--unknown-event-policy", "POLICY", new SettingType.Choice<>(UnknownEventPolicy.class),
      UnknownEventPolicy.FAIL, "FAIL (an event of a type the mirror does not know is one it cannot read: see "
          + "poisonEventPolicy) or SKIP (pass over it, logged once and counted per type).",
      MirrorSettings::unknownEventPolicy, (s, v) -> s.toBuilder().unknownEventPolicy(v).build());
  public static final MirrorSetting<Integer> CONTINUE_AS_NEW_EVERY_BATCHES = MirrorSetting.stored(
      "continueAsNewEveryBatches", "--continue-as-new-every", "BATCHES", new SettingType.Whole(1, 100_000), 500,
      "Continue the workflow as new after this many batches.",
      MirrorSettings::continueAsNewEveryBatches, (s, v) -> s.toBuilder().continueAsNewEveryBatches(v).build());
  public static final MirrorSetting<Boolean> SPLIT_LARGE_EVENTS = MirrorSetting.stored("splitLargeEvents",
      "--split-large-events", null, new SettingType.Flag(), false,
      "Split change events over 16 MiB with $changeStreamSplitLargeEvent and reassemble them "
          + "(MongoDB 6.0.9+); without it such an event fails the batch (error 10334).",
      MirrorSettings::splitLargeEvents, (s, v) -> s.toBuilder().splitLargeEvents(v).build());
  public static final MirrorSetting<Boolean> SNAPSHOT = MirrorSetting.stored("snapshot", "--snapshot", null,
      new SettingType.Flag(), true, "Copy the documents that already exist before replicating changes (default: on).",
      s -> s.snapshot().enabled(), (s, v) -> s.toBuilder().snapshot(s.snapshot().withEnabled(v)).build());
  public static final MirrorSetting<Integer> SNAPSHOT_DOCUMENTS_PER_PARTITION = MirrorSetting.stored(
      "snapshotDocumentsPerPartition", "--snapshot-documents-per-partition", "N",
      new SettingType.Whole(1, 100_000_000), 100_000, "Target documents per snapshot partition (one activity each).",
      s -> s.snapshot().documentsPerPartition(),
      (s, v) -> s.toBuilder().snapshot(s.snapshot().withDocumentsPerPartition(v)).build());
  public static final MirrorSetting<Integer> SNAPSHOT_PARALLEL_PARTITIONS = MirrorSetting.stored(
      "snapshotParallelPartitions", "--snapshot-parallel-partitions", "N", new SettingType.Whole(1, 64), 4,
      "Snapshot partitions copied at the same time.",
      s -> s.snapshot().parallelPartitions(),
      (s, v) -> s.toBuilder().snapshot(s.snapshot().withParallelPartitions(v)).build());
  public static final MirrorSetting<Map<String, String>> SNAPSHOT_FILTERS = MirrorSetting.structured(
      "snapshotFilters", List.of("--snapshot-filter"), "COLLECTION=QUERY",
      new SettingType.ByCollection<>("filter", "a JSON object or its text",
          filter -> filter instanceof String text ? text : filter instanceof Map<?, ?> ? JsonText.of(filter) : null,
          filter -> filter),
      "none", "Copy only the documents of COLLECTION matching QUERY (Extended JSON); repeat per collection; "
          + "an empty query {} removes a filter. Changes are replicated whatever the filter says.");
  public static final MirrorSetting<Boolean> AUTO_RESYNC = MirrorSetting.stored("autoResync", "--auto-resync", null,
      new SettingType.Flag(), false,
      "When the source has lost the history from the checkpoint, resynchronise without an operator "
          + "(as 'mirror resync' does) instead of failing (default: off).",
      MirrorSettings::autoResync, (s, v) -> s.toBuilder().autoResync(v).build());
  public static final MirrorSetting<Integer> VERIFY_DOCUMENTS_PER_SECOND = MirrorSetting.stored(
      "verifyDocumentsPerSecond", "--verify-documents-per-second", "N", new SettingType.Whole(1, 10_000_000), 10_000,
      "Source documents 'mirror verify' reads per second, at most, over all ranges (default 10000).",
      MirrorSettings::verifyDocumentsPerSecond, (s, v) -> s.toBuilder().verifyDocumentsPerSecond(v).build());
  public static final MirrorSetting<String> FULL_DOCUMENT_BEFORE_CHANGE = MirrorSetting.stored(
      "fullDocumentBeforeChange", "--full-document-before-change", "MODE",
      new SettingType.Word(List.of("off", "whenAvailable", "required")), "off",
      "Pre-images on the change stream: off (default), whenAvailable or required (MongoDB 6.0+, "
          + "collections with changeStreamPreAndPostImages enabled).",
      s -> s.history().fullDocumentBeforeChange(),
      (s, v) -> s.toBuilder().history(s.history().withFullDocumentBeforeChange(v)).build());
  public static final MirrorSetting<Map<String, Boolean>> HISTORY = MirrorSetting.structured("history",
      List.of("--history", "--no-history"), "COLLECTION",
      new SettingType.ByCollection<>("true or false", "true or false", on -> on instanceof Boolean b ? b : null,
          on -> on),
      "none", "Per collection, also append every applied event to its <table>_history table, or stop doing so.");
  public static final MirrorSetting<Integer> HISTORY_RETENTION_DAYS = MirrorSetting.stored("historyRetentionDays",
      "--history-retention-days", "DAYS", new SettingType.Whole(0, 36_500), 0,
      "Prune history rows older than this many days (by commit time); 0 keeps them for ever.",
      s -> s.history().retentionDays(),
      (s, v) -> s.toBuilder().history(s.history().withRetentionDays(v)).build());
  public static final MirrorSetting<List<String>> ADD_COLLECTIONS = MirrorSetting.structured("addCollections",
      List.of("--add-collection"), "NAME", new SettingType.Strings(SettingType.Strings.Rule.ANY), "–",
      "Start replicating this collection too (repeat it; edit only).");
  public static final MirrorSetting<List<String>> RESYNC_COLLECTIONS = MirrorSetting.structured("resyncCollections",
      List.of("--resync-collection"), "NAME", new SettingType.Strings(SettingType.Strings.Rule.ANY), "–",
      "Copy this replicated collection again from the checkpoint, then delete its rows the copy did not see "
          + "(repeat it; edit only).");
  public static final MirrorSetting<Map<String, List<TypedColumn>>> COLUMNS = MirrorSetting.structured("columns",
      List.of("--columns", "--columns-file"), "COLLECTION:NAME=TYPE:PATH[,...]",
      new SettingType.ByCollection<>("a list of {name, type, path}",
          "a list of objects with string fields name, type and path", SettingType.ByCollection::columnList,
          SettingType.ByCollection::columnsJson),
      "none", "Typed columns of a collection's table, written with doc; on edit, adds or redefines columns.");
  public static final MirrorSetting<Map<String, List<String>>> REMOVE_COLUMNS = MirrorSetting.structured(
      "removeColumns", List.of("--remove-column"), "COLLECTION:COLUMN",
      new SettingType.ByCollection<>("a list of column names", "a list of strings",
          SettingType.ByCollection::stringList, names -> names),
      "–", "Stop writing this typed column (its data stays unless --drop-column-data); repeatable.");
  public static final MirrorSetting<Boolean> DROP_COLUMN_DATA = MirrorSetting.structured("dropColumnData",
      List.of("--drop-column-data"), null, new SettingType.Flag(), "`false`",
      "With --remove-column: also drop the removed columns from the table.");
  public static final MirrorSetting<Map<String, List<String>>> INDEXES = MirrorSetting.structured("indexes",
      List.of("--index"), "COLLECTION:COLUMN",
      new SettingType.ByCollection<>("a list of column names", "a list of strings",
          SettingType.ByCollection::stringList, names -> names),
      "none", "Index this typed column (created concurrently once the snapshot is done); repeatable.");

  public static final MirrorSetting<Map<String, FieldRules>> FIELD_RULES = MirrorSetting.structured("fieldRules",
      List.of("--exclude-fields", "--hash-fields"), "COLLECTION:PATH[,PATH...]",
      new SettingType.ByCollection<>("{exclude, hash}", "an object of 'exclude' and 'hash', each a list of paths",
          SettingType.ByCollection::fieldRules, SettingType.ByCollection::fieldRulesJson),
      "none", "Keep fields out of the destination: exclude removes them, hash replaces each value by its keyed "
          + "HMAC-SHA-256 (64 hex characters); dotted paths through arrays, * for any one field name; repeatable. "
          + "On edit, adds rules and rewrites the rows written before them (docs/privacy.md).");
  public static final MirrorSetting<Map<String, List<String>>> REMOVE_FIELD_RULES = MirrorSetting.structured(
      "removeFieldRules", List.of("--remove-field-rules"), "COLLECTION:PATH[,PATH...]",
      new SettingType.ByCollection<>("a list of paths", "a list of strings", SettingType.ByCollection::stringList,
          paths -> paths),
      "–", "Stop applying the rules on these paths to later events (rows keep what the rule wrote; "
          + "mirror resync restores them); repeatable, edit only.");

  /** Every setting an edit may change, in the order they are documented and shown. */
  public static final List<MirrorSetting<?>> SETTINGS = List.of(BATCH_SIZE, IDLE_TIMEOUT_SECONDS,
      MAX_BATCH_DURATION_SECONDS, MAX_VISIBILITY_DELAY, DECODE_WORKERS, CHUNK_SIZE, EXCLUDED_OPERATIONS, CONTROL_EVENT_POLICY,
      POISON_EVENT_POLICY, UNKNOWN_EVENT_POLICY, CONTINUE_AS_NEW_EVERY_BATCHES, SPLIT_LARGE_EVENTS, SNAPSHOT,
      SNAPSHOT_DOCUMENTS_PER_PARTITION, SNAPSHOT_PARALLEL_PARTITIONS, SNAPSHOT_FILTERS, AUTO_RESYNC,
      VERIFY_DOCUMENTS_PER_SECOND, FULL_DOCUMENT_BEFORE_CHANGE, HISTORY, HISTORY_RETENTION_DAYS, ADD_COLLECTIONS,
      RESYNC_COLLECTIONS, COLUMNS, REMOVE_COLUMNS, DROP_COLUMN_DATA, INDEXES, FIELD_RULES, REMOVE_FIELD_RULES);

  public MirrorSettings {
    excludedOperations = excludedOperations == null ? List.of() : List.copyOf(excludedOperations);
    snapshot = snapshot == null ? SnapshotSettings.defaults() : snapshot;
    poisonEventPolicy = poisonEventPolicy == null ? POISON_EVENT_POLICY.defaultValue() : poisonEventPolicy;
    autoResync = autoResync == null ? AUTO_RESYNC.defaultValue() : autoResync;
    verifyDocumentsPerSecond = verifyDocumentsPerSecond == null ? VERIFY_DOCUMENTS_PER_SECOND.defaultValue()
        : verifyDocumentsPerSecond;
    history = history == null ? ChangeHistorySettings.defaults() : history;
    columns = columns == null ? TypedColumnSettings.defaults() : columns;
    maxVisibilityDelay = maxVisibilityDelay == null ? MAX_VISIBILITY_DELAY.defaultValue() : maxVisibilityDelay;
    unknownEventPolicy = unknownEventPolicy == null ? UNKNOWN_EVENT_POLICY.defaultValue() : unknownEventPolicy;
    fieldRules = fieldRules == null ? FieldRuleSettings.defaults() : fieldRules;
  }

  /** Every setting at its default. */
  public static MirrorSettings defaults() {
    MirrorSettings settings = new Builder().build();
    for (MirrorSetting<?> setting : SETTINGS) {
      settings = withDefault(settings, setting);
    }
    return settings;
  }

  private static <T> MirrorSettings withDefault(MirrorSettings settings, MirrorSetting<T> setting) {
    return setting.isStored() ? setting.set(settings, setting.defaultValue()) : settings;
  }

  /** These settings with one setting's value replaced: {@code defaults().with(BATCH_SIZE, 1_000)}. */
  public <T> MirrorSettings with(MirrorSetting<T> setting, T value) {
    return setting.set(this, value);
  }

  /** A builder with nothing set, as JSON without settings would be; start from {@link #defaults()} instead. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** These settings with the snapshot settings replaced. */
  public MirrorSettings withSnapshot(SnapshotSettings newSnapshot) {
    return toBuilder().snapshot(newSnapshot).build();
  }

  /** These settings with the change history settings replaced. */
  public MirrorSettings withHistory(ChangeHistorySettings newHistory) {
    return toBuilder().history(newHistory).build();
  }

  /** These settings with the field rules replaced. */
  public MirrorSettings withFieldRules(FieldRuleSettings newFieldRules) {
    return toBuilder().fieldRules(newFieldRules).build();
  }

  /** These settings with the typed column settings replaced. */
  public MirrorSettings withColumns(TypedColumnSettings newColumns) {
    return toBuilder().columns(newColumns).build();
  }

  /** Every reason these settings cannot work; empty when they can. */
  public List<String> problems() {
    List<String> problems = problems(SETTINGS);
    problems.addAll(snapshot.filterProblems());
    problems.addAll(history.collectionProblems());
    problems.addAll(columns.problems());
    problems.addAll(fieldRules.problems(columns));
    return problems;
  }

  /**
   * Every reason the values of {@code settings} cannot work, as their declarations say; for code
   * that reads only some of the settings (the pipeline) and checks those when it is given them.
   */
  public List<String> problems(List<MirrorSetting<?>> settings) {
    List<String> problems = new ArrayList<>();
    for (MirrorSetting<?> setting : settings) {
      checkValue(setting, problems);
    }
    return problems;
  }

  private <T> void checkValue(MirrorSetting<T> setting, List<String> problems) {
    if (setting.isStored()) {
      setting.check(setting.get(this), problems);
    }
  }

  /**
   * These settings with the edit's fields applied (fields the edit leaves null keep their value).
   * The result is not validated: call {@link #problems()} on it.
   */
  public MirrorSettings apply(EditRequest edit) {
    MirrorSettings settings = this;
    for (MirrorSetting<?> setting : SETTINGS) {
      settings = applyOne(settings, setting, edit);
    }
    return settings.toBuilder()
        .snapshot(settings.snapshot.withFilters(edit.get(SNAPSHOT_FILTERS)))
        .history(settings.history.switched(edit.get(HISTORY)))
        .columns(settings.columns.apply(edit))
        .fieldRules(settings.fieldRules.apply(edit))
        .build();
  }

  private static <T> MirrorSettings applyOne(MirrorSettings settings, MirrorSetting<T> setting, EditRequest edit) {
    T value = edit.get(setting);
    return setting.isStored() && value != null ? setting.set(settings, value) : settings;
  }

  /** Builds settings; starts from nothing set (see {@link #defaults()}) or from given settings. */
  public static final class Builder {
    private int batchSize;
    private int idleTimeoutSeconds;
    private int maxBatchDurationSeconds;
    private int decodeWorkers;
    private int chunkSize;
    private List<String> excludedOperations;
    private ControlEventPolicy controlEventPolicy;
    private int continueAsNewEveryBatches;
    private boolean splitLargeEvents;
    private SnapshotSettings snapshot;
    private PoisonEventPolicy poisonEventPolicy;
    private Boolean autoResync;
    private Integer verifyDocumentsPerSecond;
    private ChangeHistorySettings history;
    private TypedColumnSettings columns;
    private Integer maxVisibilityDelay;
    private UnknownEventPolicy unknownEventPolicy;
    private FieldRuleSettings fieldRules;

    private Builder() {}

    private Builder(MirrorSettings s) {
      batchSize = s.batchSize;
      idleTimeoutSeconds = s.idleTimeoutSeconds;
      maxBatchDurationSeconds = s.maxBatchDurationSeconds;
      decodeWorkers = s.decodeWorkers;
      chunkSize = s.chunkSize;
      excludedOperations = s.excludedOperations;
      controlEventPolicy = s.controlEventPolicy;
      continueAsNewEveryBatches = s.continueAsNewEveryBatches;
      splitLargeEvents = s.splitLargeEvents;
      snapshot = s.snapshot;
      poisonEventPolicy = s.poisonEventPolicy;
      autoResync = s.autoResync;
      verifyDocumentsPerSecond = s.verifyDocumentsPerSecond;
      history = s.history;
      columns = s.columns;
      maxVisibilityDelay = s.maxVisibilityDelay;
      unknownEventPolicy = s.unknownEventPolicy;
      fieldRules = s.fieldRules;
    }

    public Builder batchSize(int value) {
      batchSize = value;
      return this;
    }

    public Builder idleTimeoutSeconds(int value) {
      idleTimeoutSeconds = value;
      return this;
    }

    public Builder maxBatchDurationSeconds(int value) {
      maxBatchDurationSeconds = value;
      return this;
    }

    public Builder decodeWorkers(int value) {
      decodeWorkers = value;
      return this;
    }

    public Builder chunkSize(int value) {
      chunkSize = value;
      return this;
    }

    public Builder excludedOperations(List<String> value) {
      excludedOperations = value;
      return this;
    }

    public Builder controlEventPolicy(ControlEventPolicy value) {
      controlEventPolicy = value;
      return this;
    }

    public Builder continueAsNewEveryBatches(int value) {
      continueAsNewEveryBatches = value;
      return this;
    }

    public Builder splitLargeEvents(boolean value) {
      splitLargeEvents = value;
      return this;
    }

    public Builder snapshot(SnapshotSettings value) {
      snapshot = value;
      return this;
    }

    public Builder poisonEventPolicy(PoisonEventPolicy value) {
      poisonEventPolicy = value;
      return this;
    }

    public Builder autoResync(Boolean value) {
      autoResync = value;
      return this;
    }

    public Builder verifyDocumentsPerSecond(Integer value) {
      verifyDocumentsPerSecond = value;
      return this;
    }

    public Builder history(ChangeHistorySettings value) {
      history = value;
      return this;
    }

    public Builder columns(TypedColumnSettings value) {
      columns = value;
      return this;
    }

    public Builder maxVisibilityDelay(Integer value) {
      maxVisibilityDelay = value;
      return this;
    }

    public Builder unknownEventPolicy(UnknownEventPolicy value) {
      unknownEventPolicy = value;
      return this;
    }

    public Builder fieldRules(FieldRuleSettings value) {
      fieldRules = value;
      return this;
    }

    public MirrorSettings build() {
      return new MirrorSettings(batchSize, idleTimeoutSeconds, maxBatchDurationSeconds, decodeWorkers, chunkSize,
          excludedOperations, controlEventPolicy, continueAsNewEveryBatches, splitLargeEvents, snapshot,
          poisonEventPolicy, autoResync, verifyDocumentsPerSecond, history, columns, maxVisibilityDelay,
          unknownEventPolicy, fieldRules);
    }
  }
}
