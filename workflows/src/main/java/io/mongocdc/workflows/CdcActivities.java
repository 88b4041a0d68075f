package io.mongocdc.workflows;

import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.CommitCheckpointRequest;
import io.mongocdc.workflows.model.CommitResult;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.PullRecordsRequest;
import io.mongocdc.workflows.model.SnapshotPartitionCopied;
import io.mongocdc.workflows.model.SnapshotPartitionRequest;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotPlanRequest;
import io.temporal.workflow.Promise;
import io.temporal.workflow.ActivityStub;
import io.temporal.workflow.Workflow;
import java.util.List;

/** The workflow's calls to its activities, by activity type name (see {@link ActivityNames}). */
final class CdcActivities {

  void validateMirror(MirrorConfig mirror) {
    setup().execute(ActivityNames.VALIDATE_MIRROR, Void.class, mirror);
  }

  @SuppressWarnings("unchecked")
  List<String> createDestinationTables(MirrorConfig mirror) {
    return setup().execute(ActivityNames.CREATE_DESTINATION_TABLES, List.class, mirror);
  }

  /** The checkpoint the catalog already holds for the mirror, or null for a new one. */
  Checkpoint registerMirror(MirrorConfig mirror) {
    return setup().execute(ActivityNames.REGISTER_MIRROR, Checkpoint.class, mirror);
  }

  /** The batch that committed the catalog's checkpoint of the mirror; 0 if it has none. */
  long committedBatchId(MirrorConfig mirror) {
    return setup().execute(ActivityNames.COMMITTED_BATCH_ID, Long.class, mirror);
  }

  Checkpoint takeStartingPoint(MirrorConfig mirror) {
    return setup().execute(ActivityNames.TAKE_STARTING_POINT, Checkpoint.class, mirror);
  }

  BatchOutcome pullRecords(PullRecordsRequest request) {
    return Workflow.newUntypedActivityStub(CdcActivityOptions.pullRecords(request.mirror().settings()))
        .execute(ActivityNames.PULL_RECORDS, BatchOutcome.class, request);
  }

  CommitResult commitCheckpoint(CommitCheckpointRequest request) {
    return Workflow.newUntypedActivityStub(CdcActivityOptions.commitCheckpoint())
        .execute(ActivityNames.COMMIT_CHECKPOINT, CommitResult.class, request);
  }

  @SuppressWarnings("unchecked")
  List<String> listSourceCollections(MirrorConfig mirror) {
    return setup().execute(ActivityNames.LIST_SOURCE_COLLECTIONS, List.class, mirror);
  }

  SnapshotPlan planSnapshot(SnapshotPlanRequest request) {
    return Workflow.newUntypedActivityStub(CdcActivityOptions.planSnapshot())
        .execute(ActivityNames.PLAN_SNAPSHOT, SnapshotPlan.class, request);
  }

  /** Starts copying a partition; the promise completes when it is copied or has failed. */
  Promise<SnapshotPartitionCopied> copySnapshotPartition(SnapshotPartitionRequest request) {
    return Workflow.newUntypedActivityStub(CdcActivityOptions.copySnapshotPartition())
        .executeAsync(ActivityNames.COPY_SNAPSHOT_PARTITION, SnapshotPartitionCopied.class, request);
  }

  void recordMirrorState(MirrorStateChange change) {
    Workflow.newUntypedActivityStub(CdcActivityOptions.recordMirrorState())
        .execute(ActivityNames.RECORD_MIRROR_STATE, Void.class, change);
  }

  private static ActivityStub setup() {
    return Workflow.newUntypedActivityStub(CdcActivityOptions.setup());
  }
}
