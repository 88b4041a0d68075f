package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.FieldRuleSettings;
import io.mongocdc.workflows.model.FieldRulesWritten;
import io.mongocdc.workflows.model.StartPointRequest;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.List;
import java.util.TreeSet;
import org.slf4j.Logger;

/**
 * Sets the mirror up once: checks it, creates its tables, registers it in the catalog, and
 * chooses where its stream starts: the catalog's checkpoint of a mirror created again, the start
 * point its creator chose, or the source's "now". A new mirror (and a resync) copies its
 * collections from there first.
 */
final class SetUpStep implements Step {

  /** The change id of the initial snapshot: histories from before it replay without one. */
  static final String SNAPSHOT_CHANGE = "initial-snapshot";
  /** The change id of numbering batches after the stored checkpoint's when a mirror is created again. */
  static final String STORED_BATCH_IDS_CHANGE = "stored-batch-ids";
  /**
   * The change id of a mirror created again taking on what the rows it wrote hold under field
   * rules: the rewrites left to run, the paths hashed before, a rewrite of the rules it adds, or a
   * refusal. Recorded at every set-up: only the catalog knows whether rows were written before.
   */
  static final String CREATED_AGAIN_FIELD_RULES_CHANGE = "created-again-field-rules";

  private static final Logger log = Workflow.getLogger(SetUpStep.class);

  private final Flow flow;
  private final CarriedState carried;

  SetUpStep(Flow flow) {
    this.flow = flow;
    this.carried = flow.carried;
  }

  @Override
  public boolean due() {
    return !carried.setUp;
  }

  @Override
  public void run() {
    flow.recorder.record();
    flow.activities.validateMirror(carried.config);
    Checkpoint chosen = carried.chosenStart == null ? null : checkedStartPoint();
    List<String> tables = flow.activities.createDestinationTables(carried.config);
    Checkpoint stored = flow.activities.registerMirror(carried.config);
    if (stored != null && Workflow.getVersion(STORED_BATCH_IDS_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1) {
      // A mirror created again on a catalog that holds its rows: its batches go on after the
      // stored one. Numbered from 1, the catalog would refuse them as old and the checkpoint
      // would never move.
      carried.lastBatchId = Math.max(carried.lastBatchId, flow.activities.committedBatchId(carried.config));
    }
    Checkpoint registered = stored;
    if (flow.resync) {
      // The stored checkpoint's history is gone: start again from now, over the existing rows.
      stored = null;
    }
    if (chosen != null) {
      if (stored != null) {
        log.info("mirror {}: starting {} as its creator chose, not {} as the catalog held",
            flow.name(), chosen.describe(), stored.describe());
      }
      stored = null;
    }
    carried.checkpoint = stored != null ? stored
        : chosen != null ? chosen : flow.activities.takeStartingPoint(carried.config);
    // Before any copy: a mirror created again must know what its earlier rows hold, or refuse.
    boolean tookOnFieldRules =
        Workflow.getVersion(CREATED_AGAIN_FIELD_RULES_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1
            && takeOnFieldRulesWritten(registered);
    // Only a mirror without a committed checkpoint is new; one with a checkpoint has its rows.
    // A resync copies whatever the snapshot setting says: its rows would otherwise miss the gap.
    if (stored == null
        && (flow.resync || carried.config.settings().snapshot().enabled())
        && Workflow.getVersion(SNAPSHOT_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1) {
      List<String> collections = carried.config.collections().isEmpty()
          ? flow.activities.listSourceCollections(carried.config)
          : carried.config.collections();
      flow.state.copies.start(collections);
      if (flow.resync) {
        carried.resyncStart = carried.checkpoint;
        carried.sweepPending.addAll(ResyncSweeps.of(flow, collections));
        // A source whose "now" has not moved since the last copy (a generator that has written
        // nothing since) gives the same start, whose finished plan would answer the copy unread.
        flow.state.copies.planAfresh(collections);
      }
    }
    if (!carried.config.settings().columns().indexes().isEmpty() && SharedChanges.typedColumns()) {
      carried.typedColumnIndexesPending = true;
    }
    flow.state.rememberHashedPaths(carried.config.settings().fieldRules());
    carried.startedFrom = stored == null ? carried.checkpoint : null;
    carried.chosenStart = null;
    carried.setUp = true;
    if (tookOnFieldRules) {
      // At once: until then the catalog holds the record of the rows from before, which it goes on.
      flow.recorder.record();
    }
    log.info("mirror {} set up: tables {}, starting {}", flow.name(), tables, carried.checkpoint.describe());
  }

  /**
   * A mirror created again over the rows it wrote (dropped without its tables) brings them under
   * its field rules as an edit would: it finishes the rewrites left unfinished, rewrites the rows
   * before its added rules (with a stored checkpoint, also those its last batch committed past it;
   * without one, every row before its new start), and remembers the paths hashed before; or, when
   * that cannot be done without leaving a value in clear or hashing one twice, it is refused with
   * the reason, before any row is written. A catalog that never recorded them (a new mirror, or one
   * last run by an older release) has nothing to take on.
   *
   * @param stored the checkpoint the catalog held, or null
   * @return whether the catalog had a record to take on
   */
  private boolean takeOnFieldRulesWritten(Checkpoint stored) {
    FieldRulesWritten written = flow.activities.fieldRulesWritten(carried.config);
    if (written == null) {
      return false;
    }
    FieldRuleSettings rules = carried.config.settings().fieldRules();
    List<String> problems = written.recreationProblems(rules);
    if (!problems.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure("mirror '" + flow.name() + "' created again over the rows it"
          + " wrote: " + String.join("; ", problems), FailureTypes.INVALID_CONFIGURATION);
    }
    written.hashedPaths().forEach((collection, paths) -> {
      TreeSet<String> all = new TreeSet<>(carried.hashedPaths.getOrDefault(collection, List.of()));
      all.addAll(paths);
      carried.hashedPaths.put(collection, List.copyOf(all));
    });
    // Set, not added to: a set-up tried again after a failure takes them on once.
    carried.fieldRuleRewrites.clear();
    carried.fieldRuleRewrites.addAll(stored != null ? written.rewritesFor(rules, stored)
        : written.rewritesBefore(rules, carried.checkpoint));
    if (!carried.fieldRuleRewrites.isEmpty()) {
      log.info("mirror {}: created again over the rows it wrote; rewriting them: {}", flow.name(),
          carried.fieldRuleRewrites.get(0).describe());
    }
    return true;
  }

  /**
   * The chosen start point, checked before anything is created. A point the source's history does
   * not hold never will again (history only moves on), so the workflow ends there, failed, and the
   * mirror can be created again at another point; other failures are retried as setup's are.
   */
  private Checkpoint checkedStartPoint() {
    try {
      return flow.activities.checkStartPoint(new StartPointRequest(carried.config, carried.chosenStart));
    } catch (ActivityFailure e) {
      if (!Failures.isInvalidConfiguration(e)) {
        throw e;
      }
      throw ApplicationFailure.newNonRetryableFailure("start point refused: " + Failures.message(e),
          FailureTypes.INVALID_CONFIGURATION);
    }
  }
}
