package io.mongocdc.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * The rewrite of the rows a mirror wrote before field rules were added: the added rules are
 * applied, in bounded slices between batches, to every row written up to the checkpoint the
 * rules took effect at (its state tables, history tables and quarantined events), and to none
 * written after it, which the rules reached already.
 *
 * @param rules the rules added, per collection: only those, so no value is hashed twice
 * @param upTo the committed checkpoint when the rules took effect: rows whose {@code _position}
 *     is not after it are rewritten
 * @param collection the collection being rewritten; null before the quarantine is done
 * @param stage {@code "table"} or {@code "history"}; null before the quarantine is done
 * @param afterPosition in the history table, the {@code _position} of the last row done; null to
 *     start the stage
 * @param afterKey the {@code _id} of the last row done; null to start the stage
 * @param rowsRewritten rows rewritten so far, quarantined events included
 */
public record FieldRuleRewrite(FieldRuleSettings rules, Checkpoint upTo, String collection, String stage,
    String afterPosition, String afterKey, long rowsRewritten) {

  public static final String TABLE = "table";
  public static final String HISTORY = "history";

  /** A rewrite of {@code rules} up to {@code upTo}, from its start. */
  public static FieldRuleRewrite of(FieldRuleSettings rules, Checkpoint upTo) {
    return new FieldRuleRewrite(rules, upTo, null, null, null, null, 0);
  }

  /** Whether it has rewritten everything: a slice returned it without a next place to go on. */
  @JsonIgnore
  public boolean done() {
    return collection == null && stage != null;
  }

  /** This rewrite with nothing left: {@link #done}. */
  public FieldRuleRewrite finished(long rows) {
    return new FieldRuleRewrite(rules, upTo, null, TABLE, null, null, rows);
  }

  /**
   * What tells this rewrite from every other of its mirror, whatever its place: its rules and the
   * checkpoint it goes up to (a path is never hashed twice, so no two rewrites share both).
   */
  public String id() {
    return rules.collections() + " up to " + upTo.describe();
  }

  /** One line for status and the catalog. */
  public String describe() {
    String where = done() ? "done" : collection == null ? "at the quarantined events"
        : "at " + collection + (HISTORY.equals(stage) ? "'s history" : "") + (afterKey == null ? "" : " after _id " + afterKey);
    return "rules " + rules.collections().keySet() + " added up to " + upTo.describe() + ": " + rowsRewritten
        + " rows rewritten, " + where;
  }
}
