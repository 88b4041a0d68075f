package io.mongocdc.workflows;

import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.PullRecordsRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;

/**
 * One batch of a mirror: reads the change stream from the committed checkpoint, applies the
 * records to the destination, and returns the last delivered checkpoint with the batch's
 * figures. Heartbeats its progress; a retry resumes from the last heartbeat's checkpoint.
 */
@ActivityInterface
public interface PullRecordsActivity {

  @ActivityMethod(name = ActivityNames.PULL_RECORDS)
  BatchOutcome pullRecords(PullRecordsRequest request);
}
