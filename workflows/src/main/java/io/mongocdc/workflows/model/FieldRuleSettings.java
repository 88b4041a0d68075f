package io.mongocdc.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A mirror's field rules ({@link FieldRules}), per collection. They act on every document before it
 * is rendered: in the stream, the snapshot, verify and repair (docs/privacy.md).
 *
 * @param collections per collection (sorted), its rules; null in JSON means none
 */
public record FieldRuleSettings(Map<String, FieldRules> collections) {

  /** Column types that can hold a hashed value (a string). */
  private static final List<String> HASH_READABLE_TYPES = List.of("text", "jsonb");

  public FieldRuleSettings {
    Map<String, FieldRules> kept = new TreeMap<>();
    if (collections != null) {
      collections.forEach((collection, rules) -> {
        if (rules != null && !rules.isEmpty()) {
          kept.put(collection, rules);
        }
      });
    }
    collections = DeterministicMaps.sorted(kept);
  }

  public static FieldRuleSettings defaults() {
    return new FieldRuleSettings(null);
  }

  /** A collection's rules; none when it has none. */
  public FieldRules of(String collection) {
    return collections.getOrDefault(collection, FieldRules.none());
  }

  @JsonIgnore
  public boolean isEmpty() {
    return collections.isEmpty();
  }

  /** Per collection with hash rules, their paths. */
  public Map<String, List<String>> hashedPaths() {
    Map<String, List<String>> hashed = new TreeMap<>();
    collections.forEach((collection, rules) -> {
      if (!rules.hash().isEmpty()) {
        hashed.put(collection, rules.hash());
      }
    });
    return hashed;
  }

  /** Whether any collection has a hash rule, so workers need the hash key. */
  public boolean hashes() {
    return collections.values().stream().anyMatch(rules -> !rules.hash().isEmpty());
  }

  /**
   * These rules with an edit's applied: {@code fieldRules} gives paths their rule (a path excluded
   * before and hashed now is hashed), {@code removeFieldRules} takes rules away.
   */
  public FieldRuleSettings apply(EditRequest edit) {
    Map<String, FieldRules> merged = new TreeMap<>(collections);
    Map<String, FieldRules> added = edit.get(MirrorSettings.FIELD_RULES);
    if (added != null) {
      added.forEach((collection, rules) -> merged.put(collection, of(collection).merged(rules)));
    }
    Map<String, List<String>> removed = edit.get(MirrorSettings.REMOVE_FIELD_RULES);
    if (removed != null) {
      removed.forEach((collection, paths) -> merged.computeIfPresent(collection, (c, rules) -> rules.without(paths)));
    }
    return new FieldRuleSettings(merged);
  }

  /**
   * Per collection, the rules these have that {@code before} did not: the rows written under
   * {@code before} still lack them, and a rewrite applies them. Empty when nothing was added.
   */
  public FieldRuleSettings addedSince(FieldRuleSettings before) {
    Map<String, FieldRules> added = new TreeMap<>();
    collections.forEach((collection, rules) -> added.put(collection, rules.addedSince(before.of(collection))));
    return new FieldRuleSettings(added);
  }

  /** Every reason these rules cannot work with the typed columns {@code columns}; empty when they can. */
  public List<String> problems(TypedColumnSettings columns) {
    List<String> problems = new ArrayList<>();
    collections.forEach((collection, rules) -> {
      String where = "fieldRules." + collection;
      if (collection.isBlank()) {
        problems.add("fieldRules: a collection name cannot be blank");
      }
      problems.addAll(rules.problems(where));
      for (TypedColumn column : columns.of(collection)) {
        if (column.path() == null) {
          continue;
        }
        for (String path : rules.exclude()) {
          if (FieldRules.reaches(path, column.path())) {
            problems.add(where + ": excluding '" + path + "' leaves typed column '" + column.name() + "' (path "
                + column.path() + ") nothing to read: a typed column cannot read an excluded path; drop one of the two"
                + " (removeColumns or removeFieldRules)");
          }
        }
        for (String path : rules.hash()) {
          boolean readable = FieldRules.actsOn(path, column.path()) && HASH_READABLE_TYPES.contains(column.type());
          if (FieldRules.reaches(path, column.path()) && !readable) {
            problems.add(where + ": hashing '" + path + "' leaves typed column '" + column.name() + "' (" + column.type()
                + " at " + column.path() + ") nothing it can read: a hash is a string of 64 hex characters, readable"
                + " only by a text or jsonb column at the hashed path itself");
          }
        }
      }
    });
    return problems;
  }

  /**
   * A problem for each collection these rules name that is not in {@code existing}, the
   * collections the source database {@code database} has: a rule of a collection that is not there
   * applies to nothing, and would leave the collection meant unprotected. Where a name differs from
   * an existing one only by case or by a database before it, the problem says which one.
   */
  public List<String> collectionProblems(String database, Collection<String> existing) {
    List<String> problems = new ArrayList<>();
    for (String collection : collections.keySet()) {
      if (existing.contains(collection)) {
        continue;
      }
      String meant = existing.stream()
          .filter(name -> name.equalsIgnoreCase(collection) || collection.endsWith("." + name))
          .findFirst().orElse(null);
      problems.add("fieldRules: '" + collection + "' is not a collection of " + database + ", so its rules would"
          + " apply to nothing" + (meant == null ? "" : "; did you mean '" + meant + "'? (names are exact, without"
          + " the database)") + "; the collections of " + database + " are " + listed(existing));
    }
    return problems;
  }

  /** Up to 20 names, so that a database of thousands of collections does not make a message of them all. */
  private static String listed(Collection<String> names) {
    List<String> first = names.stream().limit(20).toList();
    return names.isEmpty() ? "none" : String.join(", ", first)
        + (names.size() > first.size() ? " and " + (names.size() - first.size()) + " more" : "");
  }

  /** What an edit cannot do to these rules: take away a rule that is not there. */
  public List<String> editProblems(EditRequest edit) {
    List<String> problems = new ArrayList<>();
    Map<String, List<String>> removed = edit.get(MirrorSettings.REMOVE_FIELD_RULES);
    if (removed != null) {
      removed.forEach((collection, paths) -> {
        for (String path : paths) {
          if (!of(collection).paths().contains(path)) {
            problems.add("removeFieldRules." + collection + ": '" + path + "' has no rule");
          }
        }
      });
    }
    return problems;
  }
}
