package io.mongocdc.workflows;

import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.MirrorPhase;

/**
 * What every step works with: the run's state, the activities, the catalog's record of the
 * phase, and the work the operator may cancel. One per workflow run.
 */
final class Flow {

  final FlowState state;
  /** {@code state.carried}: what continue-as-new carries. */
  final CarriedState carried;
  final CdcActivities activities = new CdcActivities();
  final StateRecorder recorder;
  final InFlight inFlight = new InFlight();
  /** The copier that runs beside the batches when copies stream ({@link FlowState#copiesStream}). */
  final CopiesBesideBatches copying;
  /** This run was started by {@code mirror resync}: set up from a new starting point. */
  final boolean resync;

  Flow(FlowState state, boolean resync) {
    this.state = state;
    this.carried = state.carried;
    this.recorder = new StateRecorder(state, activities);
    this.resync = resync;
    this.copying = new CopiesBesideBatches(this);
  }

  /** The mirror's name, for log lines. */
  String name() {
    return carried.config.name();
  }

  /** The workflow is in {@code phase} now, and the catalog shows it. */
  void enter(MirrorPhase phase) {
    state.phase = phase;
    recorder.record();
  }
}
