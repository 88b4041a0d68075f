package io.mongocdc.workflows;

import io.mongocdc.workflows.model.MirrorStateChange;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Workflow;
import java.util.Objects;
import org.slf4j.Logger;

/**
 * Writes the workflow's phase to the mirror's catalog row when it differs from what this run last
 * wrote (phase, reason, failure or configuration). The catalog keeps the newest change by the
 * workflow's clock and count of changes, so a late retry never shows an older state. A catalog
 * that cannot be reached costs the mirror nothing: the next change writes the state.
 */
final class StateRecorder {

  /** The change id of recording phase changes in the catalog: histories from before it replay without. */
  static final String CATALOG_STATE_CHANGE = "catalog-state";
  /**
   * The change id of recording with the state what the rows the mirror wrote hold under its field
   * rules (rules, rewrites still to run, paths hashed before), and of recording again when that
   * changes: a mirror created again over those rows reads it. Recorded at a run's first change.
   */
  static final String FIELD_RULES_WRITTEN_CHANGE = "field-rules-written";

  private static final Logger log = Workflow.getLogger(StateRecorder.class);

  private final FlowState state;
  private final CdcActivities activities;
  /** Whether this run records its phase changes; decided at its first change. */
  private Boolean recordsStates;
  /** Whether this run's changes carry {@link FlowState#fieldRulesWritten}; decided with {@link #recordsStates}. */
  private boolean recordsFieldRules;
  /** The last change recorded by this run, to write only what changed. */
  private MirrorStateChange recorded;

  StateRecorder(FlowState state, CdcActivities activities) {
    this.state = state;
    this.activities = activities;
  }

  void record() {
    if (recordsStates == null) {
      recordsStates = Workflow.getVersion(CATALOG_STATE_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
      recordsFieldRules = recordsStates
          && Workflow.getVersion(FIELD_RULES_WRITTEN_CHANGE, Workflow.DEFAULT_VERSION, 1) == 1;
    }
    MirrorStateChange change = state.stateChange(Workflow.currentTimeMillis(), recordsFieldRules);
    if (!recordsStates || same(change, recorded)) {
      return;
    }
    state.carried.stateChanges = change.sequence();
    try {
      activities.recordMirrorState(change);
      recorded = change;
    } catch (ActivityFailure e) {
      log.warn("mirror {}: the catalog does not show state {} yet: {}", state.carried.config.name(), change.phase(),
          Failures.describe(e));
    }
  }

  private static boolean same(MirrorStateChange a, MirrorStateChange b) {
    return b != null && a.phase() == b.phase() && Objects.equals(a.reason(), b.reason())
        && Objects.equals(a.lastError(), b.lastError()) && a.failedAttempts() == b.failedAttempts()
        && a.config().equals(b.config()) && Objects.equals(a.fieldRulesWritten(), b.fieldRulesWritten());
  }
}
