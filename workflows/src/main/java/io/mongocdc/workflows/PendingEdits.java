package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.JsonText;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.RejectedEdit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * The accepted edits not applied yet, what they will make of the mirror, and the edits and signals
 * rejected. Plain deterministic code over {@link CarriedState}, no Temporal calls.
 */
final class PendingEdits {

  /** Status keeps this many rejected edits and signals; older ones drop off. */
  static final int REJECTED_EDITS_KEPT = 10;

  private final CarriedState carried;
  private final Copies copies;

  PendingEdits(CarriedState carried, Copies copies) {
    this.carried = carried;
    this.copies = copies;
  }

  int count() {
    return carried.pendingEdits.size();
  }

  /** The settings the next batch will use: the current ones with every pending edit applied. */
  MirrorSettings nextSettings() {
    MirrorSettings settings = carried.config.settings();
    for (EditRequest edit : carried.pendingEdits) {
      settings = settings.apply(edit);
    }
    return settings;
  }

  /** The mirror as the next step will run it: every pending edit applied. */
  MirrorConfig nextConfig() {
    return withEdit(null);
  }

  /** The mirror with every pending edit and {@code extra} (if not null) applied. */
  MirrorConfig withEdit(EditRequest extra) {
    List<String> collections = new ArrayList<>(carried.config.collections());
    collectionsToAdd().forEach(collections::add);
    MirrorSettings settings = nextSettings();
    if (extra != null) {
      if (extra.addCollections() != null) {
        collections.addAll(extra.addCollections());
      }
      settings = settings.apply(extra);
    }
    return carried.config.withCollections(collections).withSettings(settings);
  }

  /** The collections pending edits add, in the order they were asked for. */
  List<String> collectionsToAdd() {
    return collectionsNamed(EditRequest::addCollections);
  }

  /** The collections pending edits copy again, in the order they were asked for. */
  List<String> collectionsToResync() {
    return collectionsNamed(EditRequest::resyncCollections);
  }

  /** One collection-list field over the pending edits, each collection once, in the order asked. */
  private List<String> collectionsNamed(Function<EditRequest, List<String>> field) {
    Set<String> collections = new LinkedHashSet<>();
    for (EditRequest edit : carried.pendingEdits) {
      List<String> named = field.apply(edit);
      if (named != null) {
        collections.addAll(named);
      }
    }
    return List.copyOf(collections);
  }

  /** Whether a pending edit adds or removes field rules. */
  boolean changeFieldRules() {
    return carried.pendingEdits.stream().anyMatch(EditRequest::changesFieldRules);
  }

  /** Whether a pending edit adds, removes or indexes typed columns. */
  boolean changeColumns() {
    return carried.pendingEdits.stream().anyMatch(EditRequest::changesColumns);
  }

  /** Per collection, the typed columns pending edits remove with {@code dropColumnData}. */
  Map<String, List<String>> columnsToDrop() {
    Map<String, List<String>> drop = new TreeMap<>();
    for (EditRequest edit : carried.pendingEdits) {
      if (Boolean.TRUE.equals(edit.dropColumnData()) && edit.removeColumns() != null) {
        edit.removeColumns().forEach((collection, names) ->
            drop.computeIfAbsent(collection, c -> new ArrayList<>()).addAll(names));
      }
    }
    return drop;
  }

  /**
   * Pending edits take effect: called between steps (batches, snapshot rounds). A collection
   * added while snapshots are on is copied from the committed checkpoint, taking turns with the
   * batches, which replay its changes from there.
   */
  void apply() {
    apply(count());
  }

  /** The first {@code count} pending edits take effect, in arrival order; the later ones stay pending. */
  void apply(int count) {
    if (count > 0) {
      List<EditRequest> later = List.copyOf(carried.pendingEdits.subList(count, carried.pendingEdits.size()));
      carried.pendingEdits.subList(count, carried.pendingEdits.size()).clear();
      List<String> added = collectionsToAdd();
      List<String> resynced = collectionsToResync();
      carried.config = nextConfig();
      carried.pendingEdits.clear();
      carried.pendingEdits.addAll(later);
      if (carried.config.settings().snapshot().enabled()) {
        copies.start(added);
        copies.copyBetweenBatches(added);
      }
      copies.copyAgain(resynced);
    }
  }

  /** An edit or signal not acted on, kept for status with the reason. */
  void reject(long nowMillis, String request, String reason) {
    carried.rejectedEdits.add(new RejectedEdit(nowMillis, request, reason));
    while (carried.rejectedEdits.size() > REJECTED_EDITS_KEPT) {
      carried.rejectedEdits.remove(0);
    }
  }

  /**
   * The added collections could not be set up (the source or destination refused them): pending
   * edits lose their {@code addCollections}, and the refusal is kept with the rejected edits.
   */
  void rejectAddedCollections(long nowMillis, String reason) {
    List<String> added = collectionsToAdd();
    narrowEach(EditRequest::settingsOnly);
    reject(nowMillis, JsonText.of(Map.of("addCollections", added)), reason);
  }

  /**
   * The field rules pending edits add could not apply (they name collections the source does not
   * have): the edits lose their {@code fieldRules}, the rest of them still applies, and the refusal
   * is kept with the rejected edits.
   */
  void rejectAddedFieldRules(long nowMillis, String reason) {
    Map<String, Object> asked = new TreeMap<>();
    carried.pendingEdits.stream().filter(edit -> edit.fieldRules() != null)
        .forEach(edit -> asked.putAll(edit.fieldRules()));
    narrowEach(edit -> edit.with(MirrorSettings.FIELD_RULES, null));
    reject(nowMillis, JsonText.of(Map.of("fieldRules", asked)), reason);
  }

  /**
   * Collections a pending {@code resyncCollections} names that the source does not have (a
   * mirror of every collection): the edits lose them, and the refusal is kept with the rejected
   * edits.
   */
  void rejectResyncOf(List<String> missing, long nowMillis) {
    narrowEach(edit -> {
      if (edit.resyncCollections() == null) {
        return edit;
      }
      List<String> left = edit.resyncCollections().stream().filter(c -> !missing.contains(c)).toList();
      return edit.with(MirrorSettings.RESYNC_COLLECTIONS, left.isEmpty() ? null : left);
    });
    reject(nowMillis, JsonText.of(Map.of("resyncCollections", missing)),
        "the source database " + carried.config.sourceDatabase() + " has no collection " + String.join(", ", missing));
  }

  /** Each pending edit as {@code narrow} leaves it, in order; one left changing nothing is dropped. */
  private void narrowEach(UnaryOperator<EditRequest> narrow) {
    List<EditRequest> kept = new ArrayList<>();
    for (EditRequest edit : carried.pendingEdits) {
      EditRequest next = narrow.apply(edit);
      if (!next.changesNothing()) {
        kept.add(next);
      }
    }
    carried.pendingEdits.clear();
    carried.pendingEdits.addAll(kept);
  }
}
