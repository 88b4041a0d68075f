package io.mongocdc.workflows.model;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything a mirror's workflow carries into its next run when it continues as new: one object
 * the workflow changes as it goes and hands to continue-as-new whole (as temporalio/samples-java's
 * {@code ClusterManagerState} and PeerDB's {@code CDCFlowWorkflowState}). A field declared here is
 * carried; nothing copies fields in or out.
 *
 * <p>Written and read by Temporal's Jackson mapper, which sees fields whatever their visibility:
 * each field is a JSON field of the same name, and the names are those of the histories already
 * written, so do not rename one. A field absent from an older history keeps the value it is
 * declared with here; so does a list or total written as null. No method may look like a getter
 * or setter ({@code getX}, {@code isX}, {@code setX}): the mapper would take it for a field.
 */
public final class CarriedState {

  /** The mirror with the settings in effect. */
  public MirrorConfig config;
  /** True once setup finished; the next run does not repeat it. */
  public boolean setUp;
  /** The committed checkpoint. */
  public Checkpoint checkpoint;
  /**
   * Where the mirror's stream started when it was set up: the start point its creator chose, or
   * the source's time then; null for a mirror set up again over a stored checkpoint (and in
   * histories from before start points).
   */
  public Checkpoint startedFrom;
  /**
   * The start point the mirror's creator chose ({@link CdcFlowInput#startAt}), carried until setup
   * has used it, so a setup that continues as new before it succeeds still starts there; null
   * when none was chosen.
   */
  public Checkpoint chosenStart;
  /** The last committed batch. */
  public long lastBatchId;
  /** When it was committed. */
  public Long committedAtMillis;
  /** Figures over every committed batch. */
  @JsonSetter(nulls = Nulls.SKIP)
  public MirrorTotals totals = MirrorTotals.ZERO;
  /** Whether the mirror is paused. */
  public boolean paused;
  /** Whether the pause is a failure waiting for the operator. */
  public boolean failed;
  /** Why it is paused. */
  public String pausedReason;
  /** Accepted edits not yet applied, in the order they were accepted. */
  @JsonSetter(nulls = Nulls.SKIP)
  public List<EditRequest> pendingEdits = new ArrayList<>();
  /** The most recent rejected edits and signals, oldest first. */
  @JsonSetter(nulls = Nulls.SKIP)
  public List<RejectedEdit> rejectedEdits = new ArrayList<>();
  /** The last failure. */
  public String lastError;
  /** When it happened. */
  public Long lastErrorAtMillis;
  /** Consecutive failed attempts. */
  public int failedAttempts;
  /** How many times the workflow continued as new before this run. */
  public int run;
  /**
   * Every collection's snapshot, in the order they were asked for; done ones stay for status
   * (absent in histories from before snapshots existed).
   */
  @JsonSetter(nulls = Nulls.SKIP)
  public List<SnapshotProgress> snapshots = new ArrayList<>();
  /**
   * The type of the last failure (see {@code FailureTypes}); null if none or in histories from
   * before it was carried.
   */
  public String lastFailureType;
  /** How many phase changes the workflow recorded in the catalog, over all runs. */
  public long stateChanges;
  /**
   * Collections of a resync whose rows the copy did not see are still to be deleted, in order,
   * once every snapshot is done; empty (and absent in older histories) otherwise.
   */
  @JsonSetter(nulls = Nulls.SKIP)
  public List<String> sweepPending = new ArrayList<>();
  /**
   * Collections copied again by {@code resyncCollections} whose snapshot is not planned yet: their
   * plan is made afresh, never the stored one of the same start (empty, and absent in older
   * histories, otherwise).
   */
  @JsonSetter(nulls = Nulls.SKIP)
  public List<String> freshSnapshotPlans = new ArrayList<>();
  /**
   * Collections whose copy an edit asked for while the mirror ran (added, copied again, history
   * turned on): their copy takes turns with the batches, which go on streaming every collection. A
   * setup's or a resync's copy is not listed: batches wait for it (empty, and absent in older
   * histories, otherwise).
   */
  @JsonSetter(nulls = Nulls.SKIP)
  public List<String> copiesBetweenBatches = new ArrayList<>();
  /**
   * The next step resynchronises: {@code autoResync} found the history lost, or the operator asked
   * ({@code mongo-cdc mirror resync}) (absent in older histories: no).
   */
  public boolean resyncNeeded;
  /**
   * Where the last resync started: its sweeps delete the rows older than it, after a copy the
   * batches went on beside, so the checkpoint has moved on (null before a resync, and in older
   * histories).
   */
  public Checkpoint resyncStart;
  /** When the mirror last resynchronised ({@code autoResync} or the operator's); null if never. */
  public Long autoResyncedAtMillis;
  /**
   * Typed columns added by an edit are still being filled from {@code doc}, from here on (see
   * {@link TypedColumnsAligned#resumeAfter}); null when none are (and in older histories).
   */
  public String typedColumnsBackfillFrom;
  /** The declared typed column indexes are still to be created (absent in older histories: no). */
  public boolean typedColumnIndexesPending;
  /**
   * The freshness of the last committed batch that delivered changes; null before one (and in
   * histories from before it was carried).
   */
  public BatchFreshness lastFreshness;

  /**
   * Rewrites of the rows written before field rules were added, oldest first; the first is under
   * way (empty, and absent in older histories, when none is).
   */
  @JsonSetter(nulls = Nulls.SKIP)
  public List<FieldRuleRewrite> fieldRuleRewrites = new ArrayList<>();
  /**
   * Per collection, every path a hash rule has had since the mirror was set up: rows written then
   * hold hashes, so a hash rule on it again would hash them twice (absent in older histories: none).
   */
  @JsonSetter(nulls = Nulls.SKIP)
  public Map<String, List<String>> hashedPaths = new TreeMap<>();

  /** For the data converter; {@link #initial} for a new mirror. */
  private CarriedState() {}

  /** The state of a mirror that has not been set up yet: no checkpoint, no batch, not paused. */
  public static CarriedState initial(MirrorConfig config) {
    CarriedState state = new CarriedState();
    state.config = config;
    return state;
  }
}
