package io.mongocdc.workflows.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The settings of a mirror an operator may change while it runs (by the {@code edit} update or
 * signal). They apply from the batch after the one in flight.
 *
 * <p>Durations are whole seconds so the JSON an operator types stays plain: {@code
 * {"idleTimeoutSeconds": 5}}. Validation lives here, in deterministic code, so the workflow's
 * update validator can reject a bad edit without calling an activity.
 *
 * @param batchSize change events read per batch, at most
 * @param idleTimeoutSeconds a batch ends after this long without a new event
 * @param maxBatchDurationSeconds a batch ends after this long even if events keep coming
 * @param decodeWorkers threads decoding events in parallel in one batch
 * @param chunkSize events per chunk handed to a decode worker
 * @param excludedOperations operation types ({@code insert}, {@code update}, {@code replace},
 *     {@code delete}) not applied to the destination; the checkpoint still passes them
 * @param controlEventPolicy {@code PAUSE} (stop before a drop/rename/dropDatabase/invalidate and
 *     pause the mirror) or {@code IGNORE} (log, count and pass it)
 * @param continueAsNewEveryBatches the workflow continues as new after this many batches (or
 *     earlier when Temporal suggests it), which bounds its history
 * @param splitLargeEvents read the change stream with {@code $changeStreamSplitLargeEvent} (MongoDB
 *     6.0.9+/7.0+) and reassemble events over 16 MiB from their fragments; off (the default), such
 *     an event fails the batch with error 10334
 * @param snapshot how existing documents are copied (null in JSON means the defaults)
 * @param poisonEventPolicy what happens to an event the destination cannot hold or the decoder
 *     cannot read (see {@code docs/operations.md}): {@code FAIL} (the default; the mirror fails,
 *     not retried, naming the event) or {@code QUARANTINE} (the event is kept in the catalog's
 *     {@code quarantined_events} and the batch goes on); null in JSON means {@code FAIL}
 * @param autoResync when the source has lost the history from the checkpoint, resynchronise
 *     without an operator, as {@code mongo-cdc mirror resync} does (copy every collection again
 *     from a new starting point, delete the rows the copy did not see); off (the default, and
 *     null in JSON) the mirror fails and waits for the operator. Once per loss: history lost
 *     again before a batch committed after the resync fails the mirror
 * @param verifyDocumentsPerSecond source documents {@code mongo-cdc mirror verify} reads per
 *     second, at most, over all its ranges at once, so a verify never loads the source more than
 *     this (null in JSON means {@link #DEFAULT_VERIFY_DOCUMENTS_PER_SECOND})
 * @param history pre-images and per-collection change history tables (null in JSON means the
 *     defaults: none)
 * @param columns typed columns: per collection, projections of documents into typed PostgreSQL
 *     columns, and indexes on them (null in JSON means none)
 * @param maxVisibilityDelay milliseconds a record read from the stream may wait, at most, before
 *     the destination commits it and it becomes visible, however long the batch lasts (null in
 *     JSON means {@link #DEFAULT_MAX_VISIBILITY_DELAY})
 */
public record MirrorSettings(
    int batchSize,
    int idleTimeoutSeconds,
    int maxBatchDurationSeconds,
    int decodeWorkers,
    int chunkSize,
    List<String> excludedOperations,
    String controlEventPolicy,
    int continueAsNewEveryBatches,
    boolean splitLargeEvents,
    SnapshotSettings snapshot,
    String poisonEventPolicy,
    Boolean autoResync,
    Integer verifyDocumentsPerSecond,
    ChangeHistorySettings history,
    TypedColumnSettings columns,
    Integer maxVisibilityDelay) {

  public static final Set<String> OPERATIONS = Set.of("insert", "update", "replace", "delete");
  public static final Set<String> CONTROL_EVENT_POLICIES = Set.of("PAUSE", "IGNORE");
  public static final Set<String> POISON_EVENT_POLICIES = Set.of("FAIL", "QUARANTINE");

  static final Range BATCH_SIZE = new Range("batchSize", 1, 10_000_000);
  static final Range IDLE_TIMEOUT = new Range("idleTimeoutSeconds", 1, 3_600);
  static final Range MAX_BATCH_DURATION = new Range("maxBatchDurationSeconds", 1, 3_600);
  static final Range DECODE_WORKERS = new Range("decodeWorkers", 1, 256);
  static final Range CHUNK_SIZE = new Range("chunkSize", 1, 100_000);
  static final Range CONTINUE_AS_NEW = new Range("continueAsNewEveryBatches", 1, 100_000);
  static final Range VERIFY_DOCUMENTS_PER_SECOND = new Range("verifyDocumentsPerSecond", 1, 10_000_000);

  static final Range MAX_VISIBILITY_DELAY = new Range("maxVisibilityDelay", 1, 3_600_000);

  public static final int DEFAULT_VERIFY_DOCUMENTS_PER_SECOND = 10_000;
  public static final int DEFAULT_MAX_VISIBILITY_DELAY = 1_000;

  public MirrorSettings {
    excludedOperations = excludedOperations == null ? List.of() : List.copyOf(excludedOperations);
    snapshot = snapshot == null ? SnapshotSettings.defaults() : snapshot;
    poisonEventPolicy = poisonEventPolicy == null ? "FAIL" : poisonEventPolicy;
    autoResync = Boolean.TRUE.equals(autoResync);
    verifyDocumentsPerSecond = verifyDocumentsPerSecond == null ? DEFAULT_VERIFY_DOCUMENTS_PER_SECOND
        : verifyDocumentsPerSecond;
    history = history == null ? ChangeHistorySettings.defaults() : history;
    columns = columns == null ? TypedColumnSettings.defaults() : columns;
    maxVisibilityDelay = maxVisibilityDelay == null ? DEFAULT_MAX_VISIBILITY_DELAY : maxVisibilityDelay;
  }

  /** Settings with the default visibility delay. */
  public MirrorSettings(int batchSize, int idleTimeoutSeconds, int maxBatchDurationSeconds, int decodeWorkers,
      int chunkSize, List<String> excludedOperations, String controlEventPolicy, int continueAsNewEveryBatches,
      boolean splitLargeEvents, SnapshotSettings snapshot, String poisonEventPolicy, Boolean autoResync,
      Integer verifyDocumentsPerSecond, ChangeHistorySettings history, TypedColumnSettings columns) {
    this(batchSize, idleTimeoutSeconds, maxBatchDurationSeconds, decodeWorkers, chunkSize, excludedOperations,
        controlEventPolicy, continueAsNewEveryBatches, splitLargeEvents, snapshot, poisonEventPolicy, autoResync,
        verifyDocumentsPerSecond, history, columns, null);
  }

  /** Settings without {@code autoResync} (off), with the default verify rate, without change history or typed columns. */
  public MirrorSettings(int batchSize, int idleTimeoutSeconds, int maxBatchDurationSeconds, int decodeWorkers,
      int chunkSize, List<String> excludedOperations, String controlEventPolicy, int continueAsNewEveryBatches,
      boolean splitLargeEvents, SnapshotSettings snapshot, String poisonEventPolicy) {
    this(batchSize, idleTimeoutSeconds, maxBatchDurationSeconds, decodeWorkers, chunkSize, excludedOperations,
        controlEventPolicy, continueAsNewEveryBatches, splitLargeEvents, snapshot, poisonEventPolicy, null, null, null,
        null);
  }

  public static MirrorSettings defaults() {
    return new MirrorSettings(1_000_000, 10, 300, 4, 256, List.of(), "PAUSE", 500, false, SnapshotSettings.defaults(),
        "FAIL", false, DEFAULT_VERIFY_DOCUMENTS_PER_SECOND, ChangeHistorySettings.defaults(),
        TypedColumnSettings.defaults(), DEFAULT_MAX_VISIBILITY_DELAY);
  }

  /** These settings with the snapshot settings replaced. */
  public MirrorSettings withSnapshot(SnapshotSettings newSnapshot) {
    return new MirrorSettings(batchSize, idleTimeoutSeconds, maxBatchDurationSeconds, decodeWorkers, chunkSize,
        excludedOperations, controlEventPolicy, continueAsNewEveryBatches, splitLargeEvents, newSnapshot,
        poisonEventPolicy, autoResync, verifyDocumentsPerSecond, history, columns, maxVisibilityDelay);
  }

  /** These settings with the change history settings replaced. */
  public MirrorSettings withHistory(ChangeHistorySettings newHistory) {
    return new MirrorSettings(batchSize, idleTimeoutSeconds, maxBatchDurationSeconds, decodeWorkers, chunkSize,
        excludedOperations, controlEventPolicy, continueAsNewEveryBatches, splitLargeEvents, snapshot,
        poisonEventPolicy, autoResync, verifyDocumentsPerSecond, newHistory, columns, maxVisibilityDelay);
  }

  /** These settings with the typed column settings replaced. */
  public MirrorSettings withColumns(TypedColumnSettings newColumns) {
    return new MirrorSettings(batchSize, idleTimeoutSeconds, maxBatchDurationSeconds, decodeWorkers, chunkSize,
        excludedOperations, controlEventPolicy, continueAsNewEveryBatches, splitLargeEvents, snapshot,
        poisonEventPolicy, autoResync, verifyDocumentsPerSecond, history, newColumns, maxVisibilityDelay);
  }

  /** Every reason these settings cannot work; empty when they can. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    BATCH_SIZE.check(batchSize, problems);
    IDLE_TIMEOUT.check(idleTimeoutSeconds, problems);
    MAX_BATCH_DURATION.check(maxBatchDurationSeconds, problems);
    DECODE_WORKERS.check(decodeWorkers, problems);
    CHUNK_SIZE.check(chunkSize, problems);
    CONTINUE_AS_NEW.check(continueAsNewEveryBatches, problems);
    VERIFY_DOCUMENTS_PER_SECOND.check(verifyDocumentsPerSecond, problems);
    MAX_VISIBILITY_DELAY.check(maxVisibilityDelay, problems);
    for (String operation : excludedOperations) {
      if (!OPERATIONS.contains(operation)) {
        problems.add("excludedOperations: '" + operation + "' is not one of insert, update, replace, delete");
      }
    }
    if (Set.copyOf(excludedOperations).containsAll(OPERATIONS)) {
      problems.add("excludedOperations: excluding every operation type would replicate nothing");
    }
    if (controlEventPolicy == null || !CONTROL_EVENT_POLICIES.contains(controlEventPolicy)) {
      problems.add("controlEventPolicy must be PAUSE or IGNORE, got " + quoted(controlEventPolicy));
    }
    if (!POISON_EVENT_POLICIES.contains(poisonEventPolicy)) {
      problems.add("poisonEventPolicy must be FAIL or QUARANTINE, got " + quoted(poisonEventPolicy));
    }
    problems.addAll(snapshot.problems());
    problems.addAll(history.problems());
    problems.addAll(columns.problems());
    return problems;
  }

  /**
   * These settings with the edit's fields applied (fields the edit leaves null keep their value).
   * The result is not validated: call {@link #problems()} on it.
   */
  public MirrorSettings apply(EditRequest edit) {
    return new MirrorSettings(
        edit.batchSize() != null ? edit.batchSize() : batchSize,
        edit.idleTimeoutSeconds() != null ? edit.idleTimeoutSeconds() : idleTimeoutSeconds,
        edit.maxBatchDurationSeconds() != null ? edit.maxBatchDurationSeconds() : maxBatchDurationSeconds,
        edit.decodeWorkers() != null ? edit.decodeWorkers() : decodeWorkers,
        edit.chunkSize() != null ? edit.chunkSize() : chunkSize,
        edit.excludedOperations() != null ? edit.excludedOperations() : excludedOperations,
        edit.controlEventPolicy() != null ? edit.controlEventPolicy() : controlEventPolicy,
        edit.continueAsNewEveryBatches() != null ? edit.continueAsNewEveryBatches() : continueAsNewEveryBatches,
        edit.splitLargeEvents() != null ? edit.splitLargeEvents() : splitLargeEvents,
        snapshot.apply(edit),
        edit.poisonEventPolicy() != null ? edit.poisonEventPolicy() : poisonEventPolicy,
        edit.autoResync() != null ? edit.autoResync() : autoResync,
        edit.verifyDocumentsPerSecond() != null ? edit.verifyDocumentsPerSecond() : verifyDocumentsPerSecond,
        history.apply(edit),
        columns.apply(edit),
        edit.maxVisibilityDelay() != null ? edit.maxVisibilityDelay() : maxVisibilityDelay);
  }

  private static String quoted(String value) {
    return value == null ? "nothing" : "'" + value + "'";
  }

  /** An inclusive range of allowed values for one integer setting. */
  record Range(String name, int min, int max) {
    void check(int value, List<String> problems) {
      if (value < min || value > max) {
        problems.add(name + " must be between " + min + " and " + max + ", got " + value);
      }
    }
  }
}
