package io.mongocdc.workflows.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.List;
import java.util.Map;

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
 * @param hashedAlready per collection, the paths the rows hold hashes at already: the hash rules in
 *     effect before the rules were added. A value there stays as it is, even where an added rule
 *     reaches it too ({@code customer.*} over {@code customer.email}), as the stream hashes a value
 *     once however many rules reach it. Null (histories from before it existed) for none
 */
public record FieldRuleRewrite(FieldRuleSettings rules, Checkpoint upTo, String collection, String stage,
    String afterPosition, String afterKey, long rowsRewritten, Checkpoint after,
    Map<String, List<String>> hashedAlready) {

  public FieldRuleRewrite {
    hashedAlready = hashedAlready == null ? Map.of() : DeterministicMaps.sorted(hashedAlready);
  }

  public static final String TABLE = "table";
  public static final String HISTORY = "history";

  /** A rewrite of {@code rules} up to {@code upTo}, from its start, of rows that hold no hashes. */
  public static FieldRuleRewrite of(FieldRuleSettings rules, Checkpoint upTo) {
    return of(rules, upTo, Map.of());
  }

  /** A rewrite of {@code rules} up to {@code upTo}, from its start; see {@link #hashedAlready}. */
  public static FieldRuleRewrite of(FieldRuleSettings rules, Checkpoint upTo, Map<String, List<String>> hashedAlready) {
    return new FieldRuleRewrite(rules, upTo, null, null, null, null, 0, null, hashedAlready);
  }

  /** A rewrite of {@code rules} of every row written past {@code checkpoint}, from its start, of rows that hold no hashes. */
  public static FieldRuleRewrite pastCheckpoint(FieldRuleSettings rules, Checkpoint checkpoint) {
    return pastCheckpoint(rules, checkpoint, Map.of());
  }

  /** A rewrite of {@code rules} of every row written past {@code checkpoint}, from its start; see {@link #hashedAlready}. */
  public static FieldRuleRewrite pastCheckpoint(FieldRuleSettings rules, Checkpoint checkpoint,
      Map<String, List<String>> hashedAlready) {
    return new FieldRuleRewrite(rules, null, null, null, null, null, 0, checkpoint, hashedAlready);
  }

  /** This rewrite at a new place: {@code collection}'s {@code stage}, after the row given, with {@code rows} done. */
  public FieldRuleRewrite at(String collection, String stage, String position, String key, long rows) {
    return new FieldRuleRewrite(rules, upTo, collection, stage, position, key, rows, after, hashedAlready);
  }

  /** Whether it has rewritten everything: a slice returned it without a next place to go on. */
  @JsonIgnore
  public boolean done() {
    return collection == null && stage != null;
  }

  /** This rewrite with nothing left: {@link #done}. */
  public FieldRuleRewrite finished(long rows) {
    return new FieldRuleRewrite(rules, upTo, null, TABLE, null, null, rows, after, hashedAlready);
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
