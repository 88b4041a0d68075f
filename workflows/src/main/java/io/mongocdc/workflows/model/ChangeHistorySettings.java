package io.mongocdc.workflows.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * A mirror's change history: pre-images on the change stream and, per collection, an append-only
 * {@code <table>_history} table beside the latest state (see {@code docs/destination.md}).
 *
 * <p>Every component may be null in JSON (histories written before change history existed, or an
 * operator's payload that leaves it out): null means the default below.
 *
 * <p>{@code fullDocumentBeforeChange} and {@code retentionDays} are mirror settings, declared
 * (with their defaults and limits) in {@link MirrorSettings#SETTINGS}.
 *
 * @param fullDocumentBeforeChange {@code off} (default), {@code whenAvailable} or {@code
 *     required}: whether change events carry the document as it was before the change (MongoDB
 *     6.0+, collections with {@code changeStreamPreAndPostImages} enabled)
 * @param collections the collections whose every applied event is also appended to their history
 *     table, sorted; none by default
 * @param retentionDays history rows older than this many days (by commit time) are pruned; 0
 *     (default) keeps them for ever
 */
public record ChangeHistorySettings(String fullDocumentBeforeChange, List<String> collections, Integer retentionDays) {

  public ChangeHistorySettings {
    fullDocumentBeforeChange = fullDocumentBeforeChange == null
        ? MirrorSettings.FULL_DOCUMENT_BEFORE_CHANGE.defaultValue() : fullDocumentBeforeChange;
    // Sorted: merged from edits over time, and iterated by validation and JSON.
    collections = collections == null ? List.of() : List.copyOf(new TreeSet<>(collections));
    retentionDays = retentionDays == null ? MirrorSettings.HISTORY_RETENTION_DAYS.defaultValue() : retentionDays;
  }

  public static ChangeHistorySettings defaults() {
    return new ChangeHistorySettings(null, null, null);
  }

  /** Whether {@code collection}'s table keeps a history. */
  public boolean keepsHistory(String collection) {
    return collections.contains(collection);
  }

  public ChangeHistorySettings withFullDocumentBeforeChange(String value) {
    return new ChangeHistorySettings(value, collections, retentionDays);
  }

  public ChangeHistorySettings withRetentionDays(int value) {
    return new ChangeHistorySettings(fullDocumentBeforeChange, collections, value);
  }

  /** Every reason these settings cannot work; empty when they can. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    MirrorSettings.FULL_DOCUMENT_BEFORE_CHANGE.check(fullDocumentBeforeChange, problems);
    problems.addAll(collectionProblems());
    MirrorSettings.HISTORY_RETENTION_DAYS.check(retentionDays, problems);
    return problems;
  }

  /** Every reason the collections cannot work; empty when they can. */
  List<String> collectionProblems() {
    List<String> problems = new ArrayList<>();
    for (String collection : collections) {
      if (collection.isBlank()) {
        problems.add("history: a collection name cannot be blank");
      }
    }
    return problems;
  }

  /** These settings with an edit's fields applied. */
  public ChangeHistorySettings apply(EditRequest edit) {
    return MirrorSettings.defaults().withHistory(this).apply(edit).history();
  }

  /** These settings with each collection of {@code switches} turned on (true) or off (false); null: none. */
  ChangeHistorySettings switched(Map<String, Boolean> switches) {
    if (switches == null) {
      return this;
    }
    TreeSet<String> merged = new TreeSet<>(collections);
    switches.forEach((collection, on) -> {
      if (on) {
        merged.add(collection);
      } else {
        merged.remove(collection);
      }
    });
    return new ChangeHistorySettings(fullDocumentBeforeChange, List.copyOf(merged), retentionDays);
  }
}
