package io.mongocdc.faults;

/**
 * The fault suite's switches ({@code -Dfaults.*}, see {@link FaultInjectionTest}) and the choices
 * made from a seed alone: whether it runs with snapshots, whether it keeps a change history, whether
 * it has field rules and whether they change by edits.
 */
final class FaultOptions {

  static final boolean HEARTBEAT_STALLS = !Boolean.getBoolean("faults.noHeartbeat");
  static final boolean WORKER_CRASHES = !Boolean.getBoolean("faults.noCrash");
  static final boolean CANCELLING_PAUSES = !Boolean.getBoolean("faults.noCancel");
  /** Seeds divisible by this run with snapshots on (1: every seed; 0: none). */
  static final int SNAPSHOT_EVERY = Integer.getInteger("faults.snapshotEvery", 4);
  /** Seeds without snapshots whose remainder by this is 1 keep a change history of orders (0: none). */
  static final int HISTORY_EVERY = Integer.getInteger("faults.historyEvery", 3);
  /** Seeds whose remainder by this is 2 run with field rules on orders (0: none). */
  static final int FIELD_RULES_EVERY = Integer.getInteger("faults.fieldRulesEvery", 5);
  /**
   * The field rule seeds also add and remove rules by edits at random points ({@link RuleEditPlan});
   * {@code -Dfaults.noRuleEdits} leaves them at their fixed rules.
   */
  static final boolean RULE_EDITS = !Boolean.getBoolean("faults.noRuleEdits");
  /** Prints the driver's looks and, on failure, the workflow's histories. */
  static final boolean DEBUG = Boolean.getBoolean("faults.debug");
  /** Prints every scenario's time, plan and counts as it ends. */
  static final boolean TIMES = Boolean.getBoolean("faults.times");

  private FaultOptions() {}

  /** Whether the seed keeps a change history of orders: chosen from the seed alone. */
  static boolean isHistorySeed(long seed) {
    return HISTORY_EVERY > 0 && !isSnapshotSeed(seed) && seed % HISTORY_EVERY == 1 % HISTORY_EVERY;
  }

  /** Whether the seed runs with field rules on orders: chosen from the seed alone. */
  static boolean isFieldRuleSeed(long seed) {
    return FIELD_RULES_EVERY > 0 && seed % FIELD_RULES_EVERY == 2 % FIELD_RULES_EVERY;
  }

  /** Whether the seed's field rules change by edits during the run: chosen from the seed alone. */
  static boolean isRuleEditSeed(long seed) {
    return RULE_EDITS && isFieldRuleSeed(seed);
  }

  /** Whether the seed runs with snapshots on: chosen from the seed alone. */
  static boolean isSnapshotSeed(long seed) {
    return SNAPSHOT_EVERY > 0 && seed % SNAPSHOT_EVERY == 0;
  }
}
