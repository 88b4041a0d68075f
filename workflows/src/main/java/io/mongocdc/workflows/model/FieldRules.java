package io.mongocdc.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * One collection's field rules: the document paths whose values never reach the destination
 * ({@code exclude}: the field is removed) and those replaced by a keyed hash ({@code hash}: an
 * HMAC-SHA-256, 64 lowercase hex characters, so equal values still join). A path is dotted field
 * names; it goes through arrays (a rule on {@code items.email} acts on every element of {@code
 * items}), and a segment {@code *} stands for any one field name ({@code customer.*.email}).
 * Rules never act on the top-level {@code _id}: rows are found, deleted and verified by it.
 *
 * @param exclude paths removed, sorted; null in JSON means none
 * @param hash paths hashed, sorted; null in JSON means none
 */
public record FieldRules(List<String> exclude, List<String> hash) {

  /** The segment that stands for any one field name. */
  public static final String ANY_FIELD = "*";

  public FieldRules {
    exclude = exclude == null ? List.of() : List.copyOf(new TreeSet<>(exclude));
    hash = hash == null ? List.of() : List.copyOf(new TreeSet<>(hash));
  }

  public static FieldRules none() {
    return new FieldRules(List.of(), List.of());
  }

  @JsonIgnore
  public boolean isEmpty() {
    return exclude.isEmpty() && hash.isEmpty();
  }

  /** The path's segments. */
  public static List<String> segments(String path) {
    return List.of(path.split("\\.", -1));
  }

  /** These rules with {@code other}'s laid over them: a path takes the rule {@code other} gives it. */
  FieldRules merged(FieldRules other) {
    List<String> excluded = new ArrayList<>(exclude);
    List<String> hashed = new ArrayList<>(hash);
    excluded.removeAll(other.hash);
    hashed.removeAll(other.exclude);
    excluded.addAll(other.exclude);
    hashed.addAll(other.hash);
    return new FieldRules(excluded, hashed);
  }

  /** These rules without any on {@code paths}. */
  FieldRules without(List<String> paths) {
    return new FieldRules(exclude.stream().filter(p -> !paths.contains(p)).toList(),
        hash.stream().filter(p -> !paths.contains(p)).toList());
  }

  /** The rules of these that {@code before} did not have: what rows written under {@code before} still lack. */
  FieldRules addedSince(FieldRules before) {
    return new FieldRules(exclude.stream().filter(p -> !before.exclude.contains(p)).toList(),
        hash.stream().filter(p -> !before.hash.contains(p)).toList());
  }

  /** Every path with a rule. */
  public List<String> paths() {
    List<String> paths = new ArrayList<>(exclude);
    paths.addAll(hash);
    return paths;
  }

  /** Every reason these rules cannot work, each prefixed by {@code where}. */
  List<String> problems(String where) {
    List<String> problems = new ArrayList<>();
    for (String path : paths()) {
      if (path == null || path.isEmpty()) {
        problems.add(where + ": a rule needs a path");
        continue;
      }
      List<String> segments = segments(path);
      if (segments.stream().anyMatch(String::isEmpty)) {
        problems.add(where + ": path '" + path + "' has an empty segment");
      } else if (segments.get(0).equals("_id")) {
        problems.add(where + ": '" + path + "': _id can be neither excluded nor hashed (rows are found, deleted"
            + " and verified by their key); keep personal data out of _id");
      } else if (path.indexOf('\0') >= 0 || segments.stream().anyMatch(s -> s.startsWith("$"))) {
        problems.add(where + ": path '" + path + "' cannot hold NUL or a segment starting with $");
      }
    }
    for (String path : exclude) {
      if (hash.contains(path)) {
        problems.add(where + ": '" + path + "' is both excluded and hashed; give it one rule");
      }
    }
    return problems;
  }

  /** Where the values one rule path acts on lie against those of another (see {@link #overlap}). */
  public enum Overlap {
    /** No value of one is, holds or lies in a value of the other. */
    APART,
    /** Some value both act on ({@code customer.*} and {@code customer.email}). */
    SAME,
    /** Some value of the first holds one of the second ({@code customer} and {@code customer.*.email}). */
    ABOVE,
    /** Some value of the first lies in one of the second. */
    BELOW
  }

  /**
   * Where the values the rule on {@code path} acts on lie against those the rule on {@code other}
   * acts on, decided on the paths, not on their text: segments meet when they are equal or either
   * is {@code *} (a path's segments are field names, and both go through arrays alike).
   */
  public static Overlap overlap(String path, String other) {
    List<String> a = segments(path);
    List<String> b = segments(other);
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      if (!a.get(i).equals(b.get(i)) && !a.get(i).equals(ANY_FIELD) && !b.get(i).equals(ANY_FIELD)) {
        return Overlap.APART;
      }
    }
    return a.size() == b.size() ? Overlap.SAME : a.size() < b.size() ? Overlap.ABOVE : Overlap.BELOW;
  }

  /**
   * Whether a value at {@code path} (a typed column's path: numeric segments may index arrays)
   * is within or under what the rule on {@code rulePath} acts on.
   */
  static boolean reaches(String rulePath, String path) {
    return reaches(segments(rulePath), 0, segments(path), 0, false);
  }

  /** Whether the value at {@code path} is itself one the rule on {@code rulePath} acts on, not a part of one. */
  static boolean actsOn(String rulePath, String path) {
    return reaches(segments(rulePath), 0, segments(path), 0, true);
  }

  private static boolean reaches(List<String> rule, int r, List<String> path, int p, boolean exactly) {
    if (r == rule.size() && (!exactly || p == path.size())) {
      return true;
    }
    if (r == rule.size()) {
      return false;
    }
    if (p == path.size()) {
      return false;
    }
    String segment = path.get(p);
    if (rule.get(r).equals(ANY_FIELD) || rule.get(r).equals(segment)) {
      if (reaches(rule, r + 1, path, p + 1, exactly)) {
        return true;
      }
    }
    // A numeric segment may index an array the rule goes through.
    return !segment.isEmpty() && segment.chars().allMatch(Character::isDigit) && reaches(rule, r, path, p + 1, exactly);
  }
}
