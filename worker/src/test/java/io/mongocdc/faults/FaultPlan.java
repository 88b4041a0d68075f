package io.mongocdc.faults;

import io.mongocdc.source.ChangeStreamException;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.scripted.Gate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * A scenario's faults, drawn from its seed: where the change stream fails or stops at a gate,
 * which sink write or commit and which catalog commit fail, the signals sent at catalog commits,
 * and, with snapshots on, the faults in the copy. Drawn in the order the scenario always drew them,
 * so a seed plays the same faults.
 */
final class FaultPlan {

  /** Attempts of a CopySnapshotPartition activity before the workflow sees it fail (CdcActivityOptions). */
  static final int COPY_ATTEMPTS = 5;

  final List<PlannedGate> gates = new ArrayList<>();
  int sinkWriteFailAt = -1;
  int sinkCommitFailAt = -1;
  int catalogFailAt = -1;
  boolean catalogFailAfterCommit;
  final Map<Integer, List<Object>> stormsAt = new HashMap<>();
  final Map<Integer, Map<String, Object>> editsAt = new HashMap<>();
  /** The catalog commit during which the collection is added (-1: none). */
  int addAt = -1;
  /** The n-th partition recorded done fails, before or after it is stored (-1: none). */
  int doneFailAt = -1;
  boolean doneFailAfterStoring;
  /** Where the source has moved on to when the SOURCE_CHANGES gate opens. */
  ResumeToken sourceMovesTo;

  private final Scenario scenario;
  private final Random random;
  private final RandomWorkload workload;
  private final SnapshotScenarioSource source;
  /** The scenario's description of its plan, one line a fault. */
  private final List<String> plan;

  /** Draws the faults of {@code scenario}, whose workload and mirror are chosen already. */
  FaultPlan(Scenario scenario) {
    this.scenario = scenario;
    this.random = scenario.random;
    this.workload = scenario.workload;
    this.source = scenario.source;
    this.plan = scenario.plan;
    planStreamFaults(workload.events.size());
    if (scenario.snapshots) {
      planSnapshotFaults();
    }
  }

  private void planStreamFaults(int events) {
    List<Integer> indexes = new ArrayList<>();
    for (int i = 1; i < events; i++) {
      indexes.add(i);
    }
    Collections.shuffle(indexes, random);
    int next = 0;
    int sourceErrors = random.nextInt(3);
    for (int i = 0; i < sourceErrors; i++) {
      int at = indexes.get(next++);
      workload.stream.failAt(at, new ChangeStreamException("Prematurely reached end of stream", 0, true, null));
      plan.add("source error at event " + at);
      scenario.count("fault: source error", 1);
    }
    int notFound = random.nextInt(3);
    for (int i = 0; i < notFound; i++) {
      int at = indexes.get(next++);
      workload.stream.resumeTokenNotFoundAt(at, 1);
      plan.add("resume token not found at event " + at);
      scenario.count("fault: resume token not found", 1);
    }
    GateFault[] kinds = {GateFault.KILL_CONNECTIONS, GateFault.RESTART_POSTGRES, GateFault.CRASH_WORKER,
        GateFault.HEARTBEAT_STALL, GateFault.CANCELLING_PAUSE};
    int[] oneIn = {3, 10, 5, 6, 6};
    for (int k = 0; k < kinds.length; k++) {
      GateFault kind = kinds[k];
      if (random.nextInt(oneIn[k]) == 0 && (kind != GateFault.HEARTBEAT_STALL || FaultOptions.HEARTBEAT_STALLS)
          && (kind != GateFault.CRASH_WORKER || FaultOptions.WORKER_CRASHES)
          && (kind != GateFault.CANCELLING_PAUSE || FaultOptions.CANCELLING_PAUSES)) {
        int at = indexes.get(next++);
        gates.add(new PlannedGate(kind, GatePoint.STREAM, at, workload.stream.blockAt(at), null, 0, 0));
        plan.add(kind + " at event " + at);
      }
    }
    switch (random.nextInt(4)) {
      case 0 -> {
        sinkWriteFailAt = 1 + random.nextInt(Math.max(1, events / 4));
        plan.add("sink write " + sinkWriteFailAt + " fails");
      }
      case 1 -> {
        sinkCommitFailAt = 1 + random.nextInt(4);
        plan.add("sink commit " + sinkCommitFailAt + " fails");
      }
      default -> { }
    }
    if (random.nextInt(3) == 0) {
      catalogFailAt = 1 + random.nextInt(4);
      catalogFailAfterCommit = random.nextBoolean();
      plan.add("catalog commit " + catalogFailAt + " fails " + (catalogFailAfterCommit ? "after" : "before")
          + " it is stored");
    }
    // Storms: bursts of pause / resume / edit signals at a batch boundary.
    int storms = random.nextInt(3);
    for (int i = 0; i < storms; i++) {
      int at = 1 + random.nextInt(6);
      List<Object> burst = new ArrayList<>();
      int signals = 1 + random.nextInt(6);
      for (int j = 0; j < signals; j++) {
        burst.add(switch (random.nextInt(3)) {
          case 0 -> "pause";
          case 1 -> "resume";
          default -> randomEdit();
        });
      }
      stormsAt.computeIfAbsent(at, k -> new ArrayList<>()).addAll(burst);
      plan.add("signals " + burst + " at commit " + at);
    }
    int edits = random.nextInt(3);
    for (int i = 0; i < edits; i++) {
      int at = 1 + random.nextInt(6);
      Map<String, Object> edit = randomEdit();
      editsAt.put(at, edit);
      plan.add("edit " + edit + " at commit " + at);
    }
  }

  /**
   * The snapshot's faults: changes made after the starting point (before the copy, and while it
   * runs), gates in partition copies (crash, heartbeat stall, PostgreSQL restart, killed
   * connections, pause), a partition that fails until its retries are spent, a crash right after
   * a partition is recorded done, a catalog that fails recording one, and the collection added
   * to the running mirror.
   */
  private void planSnapshotFaults() {
    int perPartition = scenario.mirror.settings().snapshot().documentsPerPartition();
    int changes = workload.applied.size();
    int before = random.nextInt(changes / 2 + 1);
    if (before > 0) {
      source.advanceTo(workload.applied.get(before - 1).token());
    }
    plan.add("snapshot: " + before + " changes made before the copy");
    scenario.count("snapshot: changes made after the start, before the copy", before);
    if (random.nextBoolean()) {
      int to = before + random.nextInt(changes - before + 1);
      if (to > before) {
        sourceMovesTo = workload.applied.get(to - 1).token();
        copyGate(GateFault.SOURCE_CHANGES, RandomWorkload.ORDERS, perPartition);
        plan.add("snapshot: source moves on to change " + to + " during the copy");
      }
    }
    GateFault[] kinds = {GateFault.CRASH_WORKER, GateFault.HEARTBEAT_STALL, GateFault.RESTART_POSTGRES,
        GateFault.KILL_CONNECTIONS, GateFault.PAUSE};
    int[] oneIn = {3, 4, 4, 5, 5};
    for (int k = 0; k < kinds.length; k++) {
      GateFault kind = kinds[k];
      if (random.nextInt(oneIn[k]) == 0 && (kind != GateFault.HEARTBEAT_STALL || FaultOptions.HEARTBEAT_STALLS)
          && (kind != GateFault.CRASH_WORKER || FaultOptions.WORKER_CRASHES)) {
        String collection = scenario.addsCollection && random.nextInt(3) == 0 ? Scenario.ADDED_COLLECTION : RandomWorkload.ORDERS;
        copyGate(kind, collection, perPartition);
      }
    }
    int partitions = partitionsOf(RandomWorkload.ORDERS, perPartition);
    if (random.nextInt(6) == 0) {
      // As many failures in a row as the copy's retry policy allows attempts
      // (CdcActivityOptions.copySnapshotPartition): the workflow backs off, then copies the
      // partitions not done.
      int open = freeOpen(RandomWorkload.ORDERS, perPartition);
      source.failRepeatedly(RandomWorkload.ORDERS, open, COPY_ATTEMPTS);
      plan.add("the partition of open " + open + " of orders fails " + COPY_ATTEMPTS + " times");
    }
    int crashAfterDone = -1;
    if (FaultOptions.WORKER_CRASHES && random.nextInt(6) == 0) {
      crashAfterDone = 1 + random.nextInt(partitions);
      PlannedGate g = new PlannedGate(GateFault.CRASH_WORKER, GatePoint.RECORDED_DONE, 0, new Gate(), null,
          crashAfterDone, 0);
      gates.add(g);
      plan.add(g.toString());
    }
    if (random.nextInt(4) == 0) {
      doneFailAt = 1 + random.nextInt(partitions);
      if (doneFailAt == crashAfterDone) {
        doneFailAt++;
      }
      doneFailAfterStoring = random.nextBoolean();
      plan.add("partition done " + doneFailAt + " fails " + (doneFailAfterStoring ? "after" : "before")
          + " it is stored");
    }
    if (scenario.addsCollection) {
      addAt = 1 + random.nextInt(3);
      plan.add("add " + Scenario.ADDED_COLLECTION + " at commit " + addAt);
    }
  }

  /** An open of the collection's partitions that no gate of the plan has taken yet. */
  private int freeOpen(String collection, int perPartition) {
    Set<Integer> taken = new java.util.HashSet<>();
    for (PlannedGate g : gates) {
      if (g.point == GatePoint.COPY && collection.equals(g.collection)) {
        taken.add(g.open);
      }
    }
    int open = 1 + random.nextInt(partitionsOf(collection, perPartition));
    while (taken.contains(open)) {
      open++;
    }
    return open;
  }

  /** About how many partitions the plan of {@code collection} has. */
  private int partitionsOf(String collection, int perPartition) {
    return Math.max(1, (workload.existing.get(collection).size() + perPartition - 1) / perPartition);
  }

  /** A gate at a document of a partition's copy: of the k-th open of the collection, not taken yet. */
  private void copyGate(GateFault kind, String collection, int perPartition) {
    int open = freeOpen(collection, perPartition);
    PlannedGate g = new PlannedGate(kind, GatePoint.COPY, 0, new Gate(), collection, open,
        1 + random.nextInt(perPartition));
    source.arm(collection, open, g);
    gates.add(g);
    plan.add(g.toString());
  }

  private Map<String, Object> randomEdit() {
    Map<String, Object> edit = new LinkedHashMap<>();
    edit.put("batchSize", 3 + random.nextInt(40));
    edit.put("chunkSize", 1 + random.nextInt(12));
    if (random.nextBoolean()) {
      edit.put("decodeWorkers", 1 + random.nextInt(4));
    }
    return edit;
  }
}
