package io.mongocdc.workflows;

import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.SnapshotPartitionCopied;
import io.mongocdc.workflows.model.SnapshotPartitionRequest;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotPlanRequest;
import io.mongocdc.workflows.model.SweepRequest;
import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.util.List;

/** The initial snapshot's steps: which collections, how to split them, copying one partition. */
@ActivityInterface
public interface SnapshotActivity {

  /** The collections of the source database, for a mirror of every collection. */
  @ActivityMethod(name = ActivityNames.LIST_SOURCE_COLLECTIONS)
  List<String> listSourceCollections(MirrorConfig mirror);

  /**
   * The source collections the catalog records destination tables of for the mirror, sorted: a
   * resync of a mirror of every collection sweeps these too, so the table of a collection
   * dropped while the history was lost loses its rows instead of keeping them all.
   */
  @ActivityMethod(name = ActivityNames.LIST_RECORDED_COLLECTIONS)
  List<String> listRecordedCollections(MirrorConfig mirror);

  /** The collection's stored plan for this start, or a new plan (stored before it is returned). */
  @ActivityMethod(name = ActivityNames.PLAN_SNAPSHOT)
  SnapshotPlan planSnapshot(SnapshotPlanRequest request);

  /**
   * Copies one partition and records it done. A partition already recorded done is not read
   * again: its recorded figures are returned.
   */
  @ActivityMethod(name = ActivityNames.COPY_SNAPSHOT_PARTITION)
  SnapshotPartitionCopied copySnapshotPartition(SnapshotPartitionRequest request);

  /**
   * After a resync's copy of the collection: deletes the rows whose position is older than the
   * copy's, which the copy did not see. @return rows deleted
   */
  @ActivityMethod(name = ActivityNames.SWEEP_UNSEEN_ROWS)
  long sweepUnseenRows(SweepRequest request);
}
