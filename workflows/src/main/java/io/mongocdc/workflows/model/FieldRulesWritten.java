package io.mongocdc.workflows.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the rows a mirror wrote hold under its field rules, as its workflow records it in the
 * catalog once set up: a mirror created again over those rows ({@code mirror drop} without
 * {@code --drop-tables}, then {@code mirror create}, which resumes from the catalog's checkpoint)
 * reads it to bring them under the rules it adds, or to refuse with the reason.
 *
 * @param rules the field rules in effect: every row written since they took effect holds them, and
 *     every row written before does once {@code rewrites} are done
 * @param rewrites the rewrites of earlier rows still to run (see {@link FieldRuleRewrite}), the
 *     first under way; none when every row holds {@code rules}
 * @param hashedPaths per collection, every path a hash rule has had (see {@link
 *     CarriedState#hashedPaths}): rows written then hold hashes
 */
public record FieldRulesWritten(FieldRuleSettings rules, List<FieldRuleRewrite> rewrites,
    Map<String, List<String>> hashedPaths) {

  public FieldRulesWritten {
    rules = rules == null ? FieldRuleSettings.defaults() : rules;
    rewrites = rewrites == null ? List.of() : List.copyOf(rewrites);
    hashedPaths = hashedPaths == null ? Map.of() : DeterministicMaps.sorted(hashedPaths);
  }

  /**
   * Why a mirror cannot be created again with {@code next} over these rows; empty when it can. A
   * rewrite left unfinished is finished under the rules it was started for, so those must stay as
   * they were; a path hashed before and not hashed now cannot be hashed again, as an edit cannot:
   * rows written meanwhile hold its value, the others its hash, which a rewrite would hash again.
   */
  public List<String> recreationProblems(FieldRuleSettings next) {
    List<String> problems = new ArrayList<>();
    if (!rewrites.isEmpty() && !next.equals(rules)) {
      problems.add("fieldRules: the rows this mirror wrote are being rewritten (" + rewrites.get(0).describe()
          + "); create it with the field rules it had, " + rules.collections() + ", so the rewrite finishes, then"
          + " edit them");
    }
    next.collections().forEach((collection, each) -> {
      for (String path : each.hash()) {
        if (!rules.of(collection).hash().contains(path)
            && hashedPaths.getOrDefault(collection, List.of()).contains(path)) {
          problems.add("fieldRules." + collection + ": '" + path + "' was hashed before, so rows this mirror"
              + " wrote then hold hashes that a rewrite would hash again; only a new mirror can hash it again"
              + " (mirror drop --drop-tables first)");
        }
      }
    });
    return problems;
  }

  /**
   * The rewrites a mirror created again with {@code next} (without {@link #recreationProblems})
   * runs before anything else, {@code stored} being the checkpoint the catalog held: the unfinished
   * ones as they were, or for the rules {@code next} adds, the rewrite of the rows past {@code
   * stored} (its last batch may have committed some) and of those up to it.
   */
  public List<FieldRuleRewrite> rewritesFor(FieldRuleSettings next, Checkpoint stored) {
    FieldRuleSettings added = next.addedSince(rules);
    if (!rewrites.isEmpty() || added.isEmpty()) {
      return rewrites;
    }
    return List.of(FieldRuleRewrite.pastCheckpoint(added, stored), FieldRuleRewrite.of(added, stored));
  }

  /**
   * As {@link #rewritesFor(FieldRuleSettings, Checkpoint)} for a mirror created again whose catalog
   * held no checkpoint (dropped before its first commit, after its copy wrote rows): every row it
   * wrote is before {@code start}, the new mirror's starting point, so one rewrite up to it takes
   * them all; it runs before the new copy writes any row.
   */
  public List<FieldRuleRewrite> rewritesBefore(FieldRuleSettings next, Checkpoint start) {
    FieldRuleSettings added = next.addedSince(rules);
    if (!rewrites.isEmpty() || added.isEmpty()) {
      return rewrites;
    }
    return List.of(FieldRuleRewrite.of(added, start));
  }

  /**
   * These records with {@code rewrite} at its new place, or without it once it is {@link
   * FieldRuleRewrite#done}: the rewrite is found by its {@link FieldRuleRewrite#id}.
   */
  public FieldRulesWritten withProgress(FieldRuleRewrite rewrite) {
    List<FieldRuleRewrite> next = new ArrayList<>();
    for (FieldRuleRewrite each : rewrites) {
      if (!each.id().equals(rewrite.id())) {
        next.add(each);
      } else if (!rewrite.done()) {
        next.add(rewrite);
      }
    }
    return new FieldRulesWritten(rules, next, hashedPaths);
  }
}
