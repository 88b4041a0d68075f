package io.mongocdc.workflows;

import io.mongocdc.workflows.model.MirrorStateChange;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/** Writes a phase change of the mirror's workflow to its catalog row, newest change wins. */
@ActivityInterface
public interface RecordMirrorStateActivity {

  @ActivityMethod(name = ActivityNames.RECORD_MIRROR_STATE)
  void recordMirrorState(MirrorStateChange change);
}
