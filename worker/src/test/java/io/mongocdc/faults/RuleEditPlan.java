package io.mongocdc.faults;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The field rule edits of a rule edit seed ({@link FaultOptions#isRuleEditSeed}): one to three
 * edits that add a hash or exclude rule on orders, or remove one, sent through the workflow's edit
 * signal at random points of the run: during a batch (before its n-th sink write), at a batch
 * boundary (the n-th catalog commit), or right after a planned gate fault fires (a crash, a
 * heartbeat stall, a cancelling pause, a restart, killed connections). Drawn from a random of its
 * own, so the seed's workload and faults stay those it always played. Whatever the workflow
 * refuses (a path hashed before, an edit while a rewrite runs) is refused; the oracle holds the
 * rows to the rules in effect at the end.
 */
final class RuleEditPlan {

  /** The paths of orders rules may be put on or taken off: the workload's fields beside {@code _id} and {@code rev}. */
  static final List<String> PATHS = List.of("nested.a", "nested.tag", "status");

  enum When { SINK_WRITE, COMMIT, GATE }

  record Edit(When when, int at, Map<String, Object> request) {
    @Override
    public String toString() {
      return "rule edit " + request + " at " + when.name().toLowerCase().replace('_', ' ') + " " + at;
    }
  }

  private final List<Edit> edits = new ArrayList<>();

  RuleEditPlan(long seed, List<String> plan) {
    Random random = new Random(seed * 7_919 + 47);
    int count = 1 + random.nextInt(3);
    for (int i = 0; i < count; i++) {
      When when = When.values()[random.nextInt(When.values().length)];
      int at = switch (when) {
        case SINK_WRITE -> 1 + random.nextInt(12);
        case COMMIT -> 1 + random.nextInt(6);
        case GATE -> 1 + random.nextInt(2);
      };
      String path = PATHS.get(random.nextInt(PATHS.size()));
      Map<String, Object> request = new LinkedHashMap<>();
      switch (random.nextInt(3)) {
        case 0 -> request.put("fieldRules", Map.of(RandomWorkload.ORDERS, Map.of("hash", List.of(path))));
        case 1 -> request.put("fieldRules", Map.of(RandomWorkload.ORDERS, Map.of("exclude", List.of(path))));
        default -> request.put("removeFieldRules", Map.of(RandomWorkload.ORDERS, List.of(path)));
      }
      Edit edit = new Edit(when, at, request);
      edits.add(edit);
      plan.add(edit.toString());
    }
  }

  /** The edits due at the {@code n}-th point of this kind, taken out of the plan. */
  synchronized List<Map<String, Object>> due(When when, int n) {
    List<Map<String, Object>> due = new ArrayList<>();
    edits.removeIf(e -> {
      if (e.when() == when && e.at() == n) {
        due.add(e.request());
        return true;
      }
      return false;
    });
    return due;
  }
}
