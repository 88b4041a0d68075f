package io.mongocdc.workflows.model;

import java.util.List;

/**
 * Everything a mirror's workflow carries into its next run when it continues as new.
 *
 * @param config the mirror with the settings in effect
 * @param setUp true once setup finished; the next run does not repeat it
 * @param checkpoint the committed checkpoint
 * @param lastBatchId the last committed batch
 * @param committedAtMillis when it was committed
 * @param totals figures over every committed batch
 * @param paused whether the mirror is paused
 * @param failed whether the pause is a failure waiting for the operator
 * @param pausedReason why it is paused
 * @param pendingEdits accepted edits not yet applied
 * @param rejectedEdits the most recent rejected edits
 * @param lastError the last failure
 * @param lastErrorAtMillis when it happened
 * @param failedAttempts consecutive failed attempts
 * @param run how many times the workflow continued as new before this run
 * @param snapshots the collections' snapshots, done or not (null in histories from before
 *     snapshots existed)
 * @param lastFailureType the type of the last failure (see {@code FailureTypes}); null if none
 *     or in histories from before it was carried
 * @param stateChanges how many phase changes the workflow recorded in the catalog, over all runs
 * @param sweepPending collections of a resync whose rows the copy did not see are still to be
 *     deleted, once every snapshot is done; empty (and absent in older histories) otherwise
 * @param resyncNeeded {@code autoResync} found the history lost: the next step resynchronises
 *     (null in older histories: no)
 * @param autoResyncedAtMillis when {@code autoResync} last resynchronised; null if never
 * @param typedColumnsBackfillFrom typed columns added by an edit are still being filled from
 *     {@code doc}, from here on (see {@link TypedColumnsAligned#resumeAfter}); null when none are
 *     (and in older histories)
 * @param typedColumnIndexesPending the declared indexes are still to be created (null in older
 *     histories: no)
 */
public record CarriedState(
    MirrorConfig config,
    boolean setUp,
    Checkpoint checkpoint,
    long lastBatchId,
    Long committedAtMillis,
    MirrorTotals totals,
    boolean paused,
    boolean failed,
    String pausedReason,
    List<EditRequest> pendingEdits,
    List<RejectedEdit> rejectedEdits,
    String lastError,
    Long lastErrorAtMillis,
    int failedAttempts,
    int run,
    List<SnapshotProgress> snapshots,
    String lastFailureType,
    long stateChanges,
    List<String> sweepPending,
    Boolean resyncNeeded,
    Long autoResyncedAtMillis,
    String typedColumnsBackfillFrom,
    Boolean typedColumnIndexesPending) {

  public CarriedState {
    pendingEdits = pendingEdits == null ? List.of() : List.copyOf(pendingEdits);
    rejectedEdits = rejectedEdits == null ? List.of() : List.copyOf(rejectedEdits);
    totals = totals == null ? MirrorTotals.ZERO : totals;
    snapshots = snapshots == null ? List.of() : List.copyOf(snapshots);
    sweepPending = sweepPending == null ? List.of() : List.copyOf(sweepPending);
    resyncNeeded = Boolean.TRUE.equals(resyncNeeded);
    typedColumnIndexesPending = Boolean.TRUE.equals(typedColumnIndexesPending);
  }

  /** The state of a mirror that has not been set up yet. */
  public static CarriedState initial(MirrorConfig config) {
    return builder().config(config).build();
  }

  /** A builder with nothing set: no checkpoint, no batch, not set up, not paused. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a carried state, one named field at a time. */
  public static final class Builder {
    private MirrorConfig config;
    private boolean setUp;
    private Checkpoint checkpoint;
    private long lastBatchId;
    private Long committedAtMillis;
    private MirrorTotals totals;
    private boolean paused;
    private boolean failed;
    private String pausedReason;
    private List<EditRequest> pendingEdits;
    private List<RejectedEdit> rejectedEdits;
    private String lastError;
    private Long lastErrorAtMillis;
    private int failedAttempts;
    private int run;
    private List<SnapshotProgress> snapshots;
    private String lastFailureType;
    private long stateChanges;
    private List<String> sweepPending;
    private Boolean resyncNeeded;
    private Long autoResyncedAtMillis;
    private String typedColumnsBackfillFrom;
    private Boolean typedColumnIndexesPending;

    private Builder() {}

    public Builder config(MirrorConfig value) {
      config = value;
      return this;
    }

    public Builder setUp(boolean value) {
      setUp = value;
      return this;
    }

    public Builder checkpoint(Checkpoint value) {
      checkpoint = value;
      return this;
    }

    public Builder lastBatchId(long value) {
      lastBatchId = value;
      return this;
    }

    public Builder committedAtMillis(Long value) {
      committedAtMillis = value;
      return this;
    }

    public Builder totals(MirrorTotals value) {
      totals = value;
      return this;
    }

    public Builder paused(boolean value) {
      paused = value;
      return this;
    }

    public Builder failed(boolean value) {
      failed = value;
      return this;
    }

    public Builder pausedReason(String value) {
      pausedReason = value;
      return this;
    }

    public Builder pendingEdits(List<EditRequest> value) {
      pendingEdits = value;
      return this;
    }

    public Builder rejectedEdits(List<RejectedEdit> value) {
      rejectedEdits = value;
      return this;
    }

    public Builder lastError(String value) {
      lastError = value;
      return this;
    }

    public Builder lastErrorAtMillis(Long value) {
      lastErrorAtMillis = value;
      return this;
    }

    public Builder failedAttempts(int value) {
      failedAttempts = value;
      return this;
    }

    public Builder run(int value) {
      run = value;
      return this;
    }

    public Builder snapshots(List<SnapshotProgress> value) {
      snapshots = value;
      return this;
    }

    public Builder lastFailureType(String value) {
      lastFailureType = value;
      return this;
    }

    public Builder stateChanges(long value) {
      stateChanges = value;
      return this;
    }

    public Builder sweepPending(List<String> value) {
      sweepPending = value;
      return this;
    }

    public Builder resyncNeeded(Boolean value) {
      resyncNeeded = value;
      return this;
    }

    public Builder autoResyncedAtMillis(Long value) {
      autoResyncedAtMillis = value;
      return this;
    }

    public Builder typedColumnsBackfillFrom(String value) {
      typedColumnsBackfillFrom = value;
      return this;
    }

    public Builder typedColumnIndexesPending(Boolean value) {
      typedColumnIndexesPending = value;
      return this;
    }

    public CarriedState build() {
      return new CarriedState(config, setUp, checkpoint, lastBatchId, committedAtMillis, totals, paused, failed, pausedReason, pendingEdits, rejectedEdits, lastError, lastErrorAtMillis, failedAttempts, run, snapshots, lastFailureType, stateChanges, sweepPending, resyncNeeded, autoResyncedAtMillis, typedColumnsBackfillFrom, typedColumnIndexesPending);
    }
  }
}
