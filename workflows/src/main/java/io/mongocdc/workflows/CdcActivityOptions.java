package io.mongocdc.workflows;

import io.mongocdc.workflows.model.MirrorSettings;
import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import java.time.Duration;

/**
 * Timeouts and retry policies of the mirror's activities (documented in
 * {@code docs/operations.md}; change both together).
 */
public final class CdcActivityOptions {

  /** A batch may overrun its maximum duration by this much: final commit and shutdown. */
  static final Duration PULL_GRACE = Duration.ofMinutes(2);
  /** PullRecords heartbeats every 2 s; 30 s without one means the worker is gone. */
  static final Duration PULL_HEARTBEAT_TIMEOUT = Duration.ofSeconds(30);
  static final int PULL_MAX_ATTEMPTS = 5;
  static final int COMMIT_MAX_ATTEMPTS = 10;
  static final int SETUP_MAX_ATTEMPTS = 5;
  static final Duration SNAPSHOT_PLAN_TIMEOUT = Duration.ofMinutes(10);
  /** A partition is sized to copy in minutes; hours means something is wrong, and it is retried. */
  static final Duration SNAPSHOT_PARTITION_TIMEOUT = Duration.ofHours(6);
  /** After an activity's retries are spent, the workflow waits this long, doubling, up to the cap. */
  static final Duration WORKFLOW_BACKOFF_INITIAL = Duration.ofSeconds(30);
  static final Duration WORKFLOW_BACKOFF_MAX = Duration.ofMinutes(10);
  static final Duration RECORD_STATE_TIMEOUT = Duration.ofMinutes(1);

  private CdcActivityOptions() {}

  static RetryOptions retry(int maximumAttempts) {
    return RetryOptions.newBuilder()
        .setInitialInterval(Duration.ofSeconds(1))
        .setBackoffCoefficient(2.0)
        .setMaximumInterval(Duration.ofSeconds(30))
        .setMaximumAttempts(maximumAttempts)
        .setDoNotRetry(FailureTypes.NON_RETRYABLE.toArray(String[]::new))
        .build();
  }

  /**
   * PullRecords: the start-to-close timeout follows the batch's maximum duration (an edit
   * changes it); cancellation waits until the activity has stopped writing, so a resumed batch
   * never overlaps a cancelled one.
   */
  public static ActivityOptions pullRecords(MirrorSettings settings) {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(settings.maxBatchDurationSeconds()).plus(PULL_GRACE))
        .setHeartbeatTimeout(PULL_HEARTBEAT_TIMEOUT)
        .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
        .setRetryOptions(retry(PULL_MAX_ATTEMPTS))
        .build();
  }

  /** CommitCheckpoint: one small catalog transaction. */
  public static ActivityOptions commitCheckpoint() {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setRetryOptions(retry(COMMIT_MAX_ATTEMPTS))
        .build();
  }

  /** Setup steps: validation, DDL, catalog registration, reading the source's time. */
  public static ActivityOptions setup() {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofMinutes(2))
        .setRetryOptions(retry(SETUP_MAX_ATTEMPTS))
        .build();
  }

  /**
   * PlanSnapshot: counts and samples one collection's {@code _id}s ({@code $sample} may scan a
   * collection that is not much larger than the sample), then stores the plan.
   */
  public static ActivityOptions planSnapshot() {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(SNAPSHOT_PLAN_TIMEOUT)
        .setRetryOptions(retry(SETUP_MAX_ATTEMPTS))
        .build();
  }

  /**
   * CopySnapshotPartition: heartbeats as it copies, so a lost worker is noticed in 30 s however
   * long the partition takes; cancellation waits until the copy stopped writing.
   */
  public static ActivityOptions copySnapshotPartition() {
    return longAndHeartbeating();
  }

  /** SweepUnseenRows: one pass over a table, possibly large; idempotent, so retried like setup. */
  public static ActivityOptions sweepUnseenRows() {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(SNAPSHOT_PARTITION_TIMEOUT)
        .setRetryOptions(retry(SETUP_MAX_ATTEMPTS))
        .build();
  }

  /**
   * VerifyRange: heartbeats as it reads and while it waits for the mirror to pass its reads, so
   * a lost worker is noticed in 30 s and another judges the range again.
   */
  public static ActivityOptions verifyRange() {
    return longAndHeartbeating();
  }

  /**
   * AlignTypedColumns and CreateTypedColumnIndexes: a backfill over a whole table, or an index
   * built concurrently, heartbeating as they go.
   */
  public static ActivityOptions typedColumns() {
    return longAndHeartbeating();
  }

  /** RewriteFieldRules: one slice of the rows written before field rules were added, heartbeating. */
  public static ActivityOptions fieldRuleRewrite() {
    return longAndHeartbeating();
  }

  /** Up to 6 h, heartbeating, retried 5 times; a cancellation waits until the activity stopped. */
  private static ActivityOptions longAndHeartbeating() {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(SNAPSHOT_PARTITION_TIMEOUT)
        .setHeartbeatTimeout(PULL_HEARTBEAT_TIMEOUT)
        .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
        .setRetryOptions(retry(PULL_MAX_ATTEMPTS))
        .build();
  }

  /**
   * RecordMirrorState: one catalog update. The workflow does not wait for the catalog longer than
   * this; a state it could not record is recorded with the next change.
   */
  public static ActivityOptions recordMirrorState() {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(10))
        .setScheduleToCloseTimeout(RECORD_STATE_TIMEOUT)
        .setRetryOptions(RetryOptions.newBuilder()
            .setInitialInterval(Duration.ofSeconds(1))
            .setBackoffCoefficient(2.0)
            .setMaximumInterval(Duration.ofSeconds(10))
            .setDoNotRetry(FailureTypes.NON_RETRYABLE.toArray(String[]::new))
            .build())
        .build();
  }

  /** How long the workflow waits after the {@code failures}-th consecutive failed attempt. */
  static Duration workflowBackoff(int failures) {
    long seconds = WORKFLOW_BACKOFF_INITIAL.getSeconds() << Math.min(Math.max(failures - 1, 0), 10);
    return Duration.ofSeconds(Math.min(seconds, WORKFLOW_BACKOFF_MAX.getSeconds()));
  }
}
