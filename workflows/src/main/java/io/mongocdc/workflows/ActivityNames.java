package io.mongocdc.workflows;

/**
 * The activity type names, as the activity interfaces declare them. They are what workflow
 * histories record, so they never change with a method's Java name; the worker also names the
 * activity in its failure messages with them.
 */
public final class ActivityNames {

  public static final String VALIDATE_MIRROR = "ValidateMirror";
  public static final String CREATE_DESTINATION_TABLES = "CreateDestinationTables";
  public static final String REGISTER_MIRROR = "RegisterMirror";
  public static final String TAKE_STARTING_POINT = "TakeStartingPoint";
  public static final String CHECK_START_POINT = "CheckStartPoint";
  public static final String COMMITTED_BATCH_ID = "CommittedBatchId";
  public static final String FIELD_RULES_WRITTEN = "FieldRulesWritten";
  public static final String PULL_RECORDS = "PullRecords";
  public static final String COMMIT_CHECKPOINT = "CommitCheckpoint";
  public static final String LIST_SOURCE_COLLECTIONS = "ListSourceCollections";
  public static final String PLAN_SNAPSHOT = "PlanSnapshot";
  public static final String COPY_SNAPSHOT_PARTITION = "CopySnapshotPartition";
  public static final String RECORD_MIRROR_STATE = "RecordMirrorState";
  public static final String SWEEP_UNSEEN_ROWS = "SweepUnseenRows";
  public static final String LIST_RECORDED_COLLECTIONS = "ListRecordedCollections";
  public static final String START_VERIFY = "StartVerify";
  public static final String VERIFY_RANGE = "VerifyRange";
  public static final String FINISH_VERIFY = "FinishVerify";
  public static final String ALIGN_TYPED_COLUMNS = "AlignTypedColumns";
  public static final String REWRITE_FIELD_RULES = "RewriteFieldRules";
  public static final String CREATE_TYPED_COLUMN_INDEXES = "CreateTypedColumnIndexes";

  private ActivityNames() {}
}
