package io.mongocdc.workflows;

import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.CommitCheckpointRequest;
import io.mongocdc.workflows.model.CommitResult;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.FieldRulesWritten;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.PullRecordsRequest;
import io.mongocdc.workflows.model.SnapshotPartitionCopied;
import io.mongocdc.workflows.model.SnapshotPartitionRequest;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotPlanRequest;
import io.mongocdc.workflows.model.StartPointRequest;
import io.mongocdc.workflows.model.SweepRequest;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import io.temporal.activity.ActivityOptions;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.List;

/**
 * The workflow's calls to its activities, through typed stubs of the activity interfaces, each
 * with the options of its call ({@link CdcActivityOptions}). A pull's options depend on the
 * mirror's settings, so stubs are made per call; making a stub records nothing in the history.
 */
final class CdcActivities {

  void validateMirror(MirrorConfig mirror) {
    setup().validateMirror(mirror);
  }

  List<String> createDestinationTables(MirrorConfig mirror) {
    return setup().createDestinationTables(mirror);
  }

  /** The checkpoint the catalog already holds for the mirror, or null for a new one. */
  Checkpoint registerMirror(MirrorConfig mirror) {
    return setup().registerMirror(mirror);
  }

  /** The batch that committed the catalog's checkpoint of the mirror; 0 if it has none. */
  long committedBatchId(MirrorConfig mirror) {
    return setup().committedBatchId(mirror);
  }

  /** What the rows the mirror wrote hold under its field rules, as the catalog recorded it; null if never. */
  FieldRulesWritten fieldRulesWritten(MirrorConfig mirror) {
    return setup().fieldRulesWritten(mirror);
  }

  Checkpoint takeStartingPoint(MirrorConfig mirror) {
    return setup().takeStartingPoint(mirror);
  }

  Checkpoint checkStartPoint(StartPointRequest request) {
    return setup().checkStartPoint(request);
  }

  BatchOutcome pullRecords(PullRecordsRequest request) {
    return stub(PullRecordsActivity.class, CdcActivityOptions.pullRecords(request.mirror().settings()))
        .pullRecords(request);
  }

  CommitResult commitCheckpoint(CommitCheckpointRequest request) {
    return stub(CommitCheckpointActivity.class, CdcActivityOptions.commitCheckpoint()).commitCheckpoint(request);
  }

  List<String> listSourceCollections(MirrorConfig mirror) {
    return stub(SnapshotActivity.class, CdcActivityOptions.setup()).listSourceCollections(mirror);
  }

  List<String> listRecordedCollections(MirrorConfig mirror) {
    return stub(SnapshotActivity.class, CdcActivityOptions.setup()).listRecordedCollections(mirror);
  }

  SnapshotPlan planSnapshot(SnapshotPlanRequest request) {
    return stub(SnapshotActivity.class, CdcActivityOptions.planSnapshot()).planSnapshot(request);
  }

  /** Starts copying a partition; the promise completes when it is copied or has failed. */
  Promise<SnapshotPartitionCopied> copySnapshotPartition(SnapshotPartitionRequest request) {
    SnapshotActivity snapshot = stub(SnapshotActivity.class, CdcActivityOptions.copySnapshotPartition());
    return Async.function(snapshot::copySnapshotPartition, request);
  }

  long sweepUnseenRows(SweepRequest request) {
    return stub(SnapshotActivity.class, CdcActivityOptions.sweepUnseenRows()).sweepUnseenRows(request);
  }

  FieldRuleRewrite rewriteFieldRules(MirrorConfig mirror, FieldRuleRewrite rewrite) {
    return stub(FieldRuleActivity.class, CdcActivityOptions.fieldRuleRewrite()).rewriteFieldRules(mirror, rewrite);
  }

  TypedColumnsAligned alignTypedColumns(TypedColumnsRequest request) {
    return stub(TypedColumnActivity.class, CdcActivityOptions.typedColumns()).alignTypedColumns(request);
  }

  int createTypedColumnIndexes(MirrorConfig mirror) {
    return stub(TypedColumnActivity.class, CdcActivityOptions.typedColumns()).createTypedColumnIndexes(mirror);
  }

  void recordMirrorState(MirrorStateChange change) {
    stub(RecordMirrorStateActivity.class, CdcActivityOptions.recordMirrorState()).recordMirrorState(change);
  }

  private static SetupMirrorActivity setup() {
    return stub(SetupMirrorActivity.class, CdcActivityOptions.setup());
  }

  private static <T> T stub(Class<T> activities, ActivityOptions options) {
    return Workflow.newActivityStub(activities, options);
  }
}
