package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.EditRequest;
import io.mongocdc.workflows.model.FieldRules;
import io.mongocdc.workflows.model.InvalidEditException;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Decides whether an edit may be accepted, against the mirror as the pending edits will leave it
 * and the work under way: the edit update's validator, the update and the edit signal all ask
 * here. Plain deterministic code, no Temporal calls.
 */
final class EditChecks {

  private final FlowState state;
  private final CarriedState carried;

  EditChecks(FlowState state) {
    this.state = state;
    this.carried = state.carried;
  }

  /**
   * Checks an edit, its JSON body as received, against the mirror it would apply to.
   *
   * @throws InvalidEditException naming every problem
   * @throws IllegalStateException if the mirror is terminating
   */
  EditRequest check(Object body) {
    if (state.terminateRequested || state.phase == MirrorPhase.TERMINATED) {
      throw new IllegalStateException(
          "mirror '" + carried.config.name() + "' is terminating; edits are no longer accepted");
    }
    EditRequest edit = EditRequest.fromJson(body);
    MirrorConfig pending = state.edits.nextConfig();
    List<String> problems = new ArrayList<>(addedCollectionProblems(edit));
    problems.addAll(resyncProblems(edit));
    problems.addAll(pending.settings().columns().editProblems(edit));
    problems.addAll(pending.settings().fieldRules().editProblems(edit));
    problems.addAll(fieldRuleProblems(edit));
    state.edits.withEdit(edit).problems().stream()
        // Only what the edit can change: the rest of the configuration was valid already.
        .filter(p -> p.startsWith("settings.") || p.startsWith("collections"))
        .map(p -> p.startsWith("settings.") ? p.substring("settings.".length()) : p)
        .forEach(problems::add);
    if (problems.isEmpty()) {
      problems.addAll(noChangeProblems(edit, pending));
    }
    if (!problems.isEmpty()) {
      throw new InvalidEditException(problems);
    }
    return edit;
  }

  /**
   * An edit that would leave the mirror as the pending edits leave it, and asks for no copy, changes
   * nothing: refused, saying so, rather than accepted as if it did something (a rule that is there
   * already, sent again, is most likely a mistake about which rules are in effect).
   */
  private List<String> noChangeProblems(EditRequest edit, MirrorConfig pending) {
    if (edit.resyncCollections() != null || !state.edits.withEdit(edit).equals(pending)) {
      return List.of();
    }
    List<String> details = new ArrayList<>();
    if (edit.fieldRules() != null) {
      edit.fieldRules().forEach((collection, rules) -> {
        rules.exclude().forEach(path -> details.add("'" + path + "' of " + collection + " is excluded already"));
        rules.hash().forEach(path -> details.add("'" + path + "' of " + collection + " is hashed already"));
      });
    }
    details.add(String.join(", ", edit.toJson().keySet()) + ": as given, in effect or pending already");
    return List.of("the edit changes nothing (" + String.join("; ", details) + "); see mirror status for the"
        + " settings in effect");
  }

  /**
   * Field rules change only while nothing copies and no rewrite runs: a copy or a rewrite under
   * way would write some rows under the old rules and some under the new, and the rewrite of the
   * new rules must reach exactly the rows written before them. A path hashed before cannot be
   * hashed again: rows written then hold hashes, which its rewrite would hash a second time.
   */
  private List<String> fieldRuleProblems(EditRequest edit) {
    if (!edit.changesFieldRules()) {
      return List.of();
    }
    List<String> problems = new ArrayList<>();
    String busy = !carried.fieldRuleRewrites.isEmpty()
        ? "the rows written before the last added rules are being rewritten (" + carried.fieldRuleRewrites.get(0).describe() + ")"
        : state.copies.pending() ? "a snapshot or copy is running"
        : !carried.sweepPending.isEmpty() ? "a copy is deleting the rows it did not see"
        : carried.resyncNeeded ? "a resync is starting" : null;
    if (busy != null) {
      problems.add("fieldRules: cannot change while " + busy + "; send the edit again when status shows it done");
    }
    if (edit.fieldRules() != null) {
      edit.fieldRules().forEach((collection, rules) -> problems.addAll(overlapProblems(collection, rules)));
    }
    return problems;
  }

  /**
   * What hash rules an edit adds to {@code collection} cannot do to the rows written before, decided
   * on paths, not on their text (see {@link FieldRules#overlap}):
   * <ul>
   *   <li>reach values a rule hashed before and hashes no more: rows written then hold hashes, rows
   *       written since do not, and a rewrite cannot tell them apart (values a rule in effect hashes
   *       are left as they are: every row holds their hash, so a rewrite keeps it);
   *   <li>hash a value that holds one a rule hashes or hashed, or one excluded: rows written before
   *       hold the hash inside it, or lack it, so a rewrite could not give the hash the stream gives
   *       of the whole value as the source holds it, and equal values would hash apart.
   * </ul>
   */
  private List<String> overlapProblems(String collection, FieldRules rules) {
    FieldRules next = state.edits.nextConfig().settings().fieldRules().of(collection);
    FieldRules applied = carried.config.settings().fieldRules().of(collection);
    Set<String> hashed = new TreeSet<>(carried.hashedPaths.getOrDefault(collection, List.of()));
    hashed.addAll(applied.hash());
    String where = "fieldRules." + collection + ": ";
    List<String> problems = new ArrayList<>();
    for (String path : rules.hash()) {
      if (next.hash().contains(path)) {
        continue; // in effect already: the edit changes nothing of it
      }
      for (String before : hashed) {
        FieldRules.Overlap overlap = FieldRules.overlap(path, before);
        if (overlap == FieldRules.Overlap.SAME && !next.hash().contains(before)) {
          problems.add(where + (path.equals(before) ? "'" + path + "' was hashed before"
              : "'" + path + "' reaches values '" + before + "' hashed before") + ", so rows written then hold"
              + " hashes that a rewrite would hash again; only a new mirror can hash them again");
        } else if (overlap == FieldRules.Overlap.ABOVE) {
          problems.add(where + "'" + path + "' holds values '" + before + "' hashes or hashed: rows written before hold"
              + " those hashes inside it, so a rewrite could not give the hash the stream gives of the whole, and"
              + " equal values would hash apart; hash the paths inside it instead, or hash it in a new mirror");
        }
      }
      for (String excluded : applied.exclude()) {
        if (FieldRules.overlap(path, excluded) == FieldRules.Overlap.ABOVE) {
          problems.add(where + "'" + path + "' holds '" + excluded + "', which is excluded: rows written before lack"
              + " it, so a rewrite could not give the hash the stream gives of the whole, and equal values would hash"
              + " apart; hash the paths inside it instead, or hash it in a new mirror");
        }
      }
    }
    return problems;
  }

  private List<String> addedCollectionProblems(EditRequest edit) {
    if (edit.addCollections() == null) {
      return List.of();
    }
    List<String> problems = new ArrayList<>();
    if (carried.config.collections().isEmpty()) {
      problems.add("addCollections: this mirror replicates every collection of " + carried.config.sourceDatabase()
          + " already");
      return problems;
    }
    Set<String> seen = new LinkedHashSet<>(carried.config.collections());
    seen.addAll(state.edits.collectionsToAdd());
    if (edit.addCollections().isEmpty()) {
      problems.add("addCollections: name at least one collection");
    }
    for (String collection : edit.addCollections()) {
      if (collection == null || collection.isBlank()) {
        problems.add("addCollections: collection names must not be blank");
      } else if (!seen.add(collection)) {
        problems.add("addCollections: '" + collection + "' is already replicated or being added");
      }
    }
    return problems;
  }

  /**
   * A collection copied again must be one the mirror replicates (for a mirror of every collection,
   * the workflow asks the source when the edit applies) and not one being copied already.
   */
  private List<String> resyncProblems(EditRequest edit) {
    if (edit.resyncCollections() == null) {
      return List.of();
    }
    List<String> problems = new ArrayList<>();
    if (edit.resyncCollections().isEmpty()) {
      problems.add("resyncCollections: name at least one collection");
    }
    Set<String> copying = new LinkedHashSet<>(state.edits.collectionsToAdd());
    copying.addAll(state.edits.collectionsToResync());
    for (String collection : edit.resyncCollections()) {
      if (collection == null || collection.isBlank()) {
        problems.add("resyncCollections: collection names must not be blank");
      } else if (!carried.config.collections().isEmpty() && !carried.config.collections().contains(collection)) {
        problems.add("resyncCollections: '" + collection + "' is not a collection of this mirror ("
            + String.join(", ", carried.config.collections()) + ")");
      } else if (copying.contains(collection) || state.copies.beingCopied(collection)) {
        problems.add("resyncCollections: '" + collection + "' is being copied already");
      }
    }
    return problems;
  }
}
