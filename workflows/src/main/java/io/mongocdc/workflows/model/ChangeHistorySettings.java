package io.mongocdc.workflows.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A mirror's change history: pre-images on the change stream and, per collection, an append-only
 * {@code <table>_history} table beside the latest state (see {@code docs/destination.md}).
 *
 * <p>Every component may be null in JSON (histories written before change history existed, or an
 * operator's payload that leaves it out): null means the default below.
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

  public static final String DEFAULT_PRE_IMAGES = "off";
  public static final Set<String> PRE_IMAGE_MODES = Set.of("off", "whenAvailable", "required");

  static final MirrorSettings.Range RETENTION_DAYS = new MirrorSettings.Range("historyRetentionDays", 0, 36_500);

  public ChangeHistorySettings {
    fullDocumentBeforeChange = fullDocumentBeforeChange == null ? DEFAULT_PRE_IMAGES : fullDocumentBeforeChange;
    // Sorted: merged from edits over time, and iterated by validation and JSON.
    collections = collections == null ? List.of() : List.copyOf(new TreeSet<>(collections));
    retentionDays = retentionDays == null ? 0 : retentionDays;
  }

  public static ChangeHistorySettings defaults() {
    return new ChangeHistorySettings(null, null, null);
  }

  /** Whether {@code collection}'s table keeps a history. */
  public boolean keepsHistory(String collection) {
    return collections.contains(collection);
  }

  /** Every reason these settings cannot work; empty when they can. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (!PRE_IMAGE_MODES.contains(fullDocumentBeforeChange)) {
      problems.add("fullDocumentBeforeChange must be off, whenAvailable or required, got '"
          + fullDocumentBeforeChange + "'");
    }
    for (String collection : collections) {
      if (collection.isBlank()) {
        problems.add("history: a collection name cannot be blank");
      }
    }
    RETENTION_DAYS.check(retentionDays, problems);
    return problems;
  }

  public ChangeHistorySettings apply(EditRequest edit) {
    TreeSet<String> merged = new TreeSet<>(collections);
    Map<String, Boolean> history = edit.history();
    if (history != null) {
      history.forEach((collection, on) -> {
        if (on) {
          merged.add(collection);
        } else {
          merged.remove(collection);
        }
      });
    }
    return new ChangeHistorySettings(
        edit.fullDocumentBeforeChange() != null ? edit.fullDocumentBeforeChange() : fullDocumentBeforeChange,
        List.copyOf(merged),
        edit.historyRetentionDays() != null ? edit.historyRetentionDays() : retentionDays);
  }
}
