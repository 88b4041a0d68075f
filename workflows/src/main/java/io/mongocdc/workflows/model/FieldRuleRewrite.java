package io.mongocdc.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * The rewrite of the rows a mirror wrote before field rules were added: the added rules are
 * applied, in bounded slices between batches, to every row written up to the checkpoint the
 * rules took effect at (its state tables, history tables and quarantined events), and to none
 * written after it, which the rules reached already.
 *
 * <p>Rows past that checkpoint can exist too: a batch that was cancelled or failed after some of
 * its commits. They were written before the rules, and the batch's replay leaves them as they
 * are (it writes the same positions). A second rewrite takes them, with {@link #after} set and no
 * {@code upTo}: it runs before any batch, so every row past the checkpoint is still one written
 * before the rules.
 *
 * @param rules the rules added, per collection: only those, so no value is hashed twice
 * @param upTo the committed checkpoint when the rules took effect: rows whose {@code _position}
 *     is not after it are rewritten; null for the rewrite of the rows past {@code after}
 * @param collection the collection being rewritten; null before the quarantine is done
 * @param stage {@code "table"} or {@code "history"}; null before the quarantine is done
 * @param afterPosition in the history table, the {@code _position} of the last row done; null to
 *     start the stage
 * @param afterKey the {@code _id} of the last row done; null to start the stage
 * @param rowsRewritten rows rewritten so far, quarantined events included
 * @param after only rows whose {@code _position} is after this checkpoint are rewritten; null for
 *     no lower bound (and in histories from before it existed)
 */
public record FieldRuleRewrite(FieldRuleSettings rules, Checkpoint upTo, String collection, String stage,
    String afterPosition, String afterKey, long rowsRewritten, Checkpoint after) {

  public static final String TABLE = "table";
  public static final String HISTORY = "history";

  /** A rewrite of {@code rules} up to {@code upTo}, from its start. */
  public static FieldRuleRewrite of(FieldRuleSettings rules, Checkpoint upTo) {
    return new FieldRuleRewrite(rules, upTo, null, null, null, null, 0, null);
  }

  /** A rewrite of {@code rules} of every row written past {@code checkpoint}, from its start. */
  public static FieldRuleRewrite pastCheckpoint(FieldRuleSettings rules, Checkpoint checkpoint) {
    return new FieldRuleRewrite(rules, null, null, null, null, null, 0, checkpoint);
  }

  /** This rewrite at a new place: {@code collection}'s {@code stage}, after the row given, with {@code rows} done. */
  public FieldRuleRewrite at(String collection, String stage, String position, String key, long rows) {
    return new FieldRuleRewrite(rules, upTo, collection, stage, position, key, rows, after);
  }

  /** Whether it has rewritten everything: a slice returned it without a next place to go on. */
  @JsonIgnore
  public boolean done() {
    return collection == null && stage != null;
  }

  /** This rewrite with nothing left: {@link #done}. */
  public FieldRuleRewrite finished(long rows) {
    return new FieldRuleRewrite(rules, upTo, null, TABLE, null, null, rows, after);
  }

  /**
   * What tells this rewrite from every other of its mirror, whatever its place: its rules and the
   * positions it covers (a path is never hashed twice, so no two rewrites share both).
   */
  public String id() {
    return rules.collections() + " " + range();
  }

  /** The positions it covers, in words. */
  private String range() {
    return after == null ? "up to " + upTo.describe()
        : upTo == null ? "past " + after.describe() : "past " + after.describe() + " up to " + upTo.describe();
  }

  /** One line for status and the catalog. */
  public String describe() {
    String where = done() ? "done" : collection == null ? "at the quarantined events"
        : "at " + collection + (HISTORY.equals(stage) ? "'s history" : "") + (afterKey == null ? "" : " after _id " + afterKey);
    return "rules " + rules.collections().keySet() + " added " + range() + ": " + rowsRewritten
        + " rows rewritten, " + where;
  }
}
