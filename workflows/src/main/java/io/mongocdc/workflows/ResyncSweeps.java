package io.mongocdc.workflows;

import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * What a resync sweeps once its copy is done: the collections it copies and, for a mirror of
 * every collection, the collections it has tables of: one dropped while the history was lost is no
 * longer listed, and its table's rows are all of documents deleted meanwhile. Not a collection
 * with a snapshot filter (see {@link Copies#withoutSnapshotFilter}). Both resyncs ask: the one
 * {@code mirror resync} starts at set-up, and {@code autoResync}'s.
 */
final class ResyncSweeps {

  /** The change id of a resync also sweeping the recorded tables of collections the source no longer has. */
  static final String RESYNC_SWEEPS_RECORDED_TABLES_CHANGE = "resync-sweeps-recorded-tables";
  /**
   * The change id of a resync not sweeping collections that have a snapshot filter (it used to
   * delete the rows of the documents the filter leaves out). Recorded only for such a resync.
   */
  static final String RESYNC_KEEPS_FILTERED_ROWS_CHANGE = "resync-keeps-filtered-rows";

  private ResyncSweeps() {}

  static List<String> of(Flow flow, List<String> copied) {
    List<String> sweep = new ArrayList<>(copied);
    if (flow.carried.config.collections().isEmpty() && Workflow.getVersion(RESYNC_SWEEPS_RECORDED_TABLES_CHANGE,
        Workflow.DEFAULT_VERSION, 1) == 1) {
      flow.activities.listRecordedCollections(flow.carried.config).stream()
          .filter(c -> !copied.contains(c)).forEach(sweep::add);
    }
    List<String> unfiltered = flow.state.copies.withoutSnapshotFilter(sweep);
    if (unfiltered.size() < sweep.size() && Workflow.getVersion(RESYNC_KEEPS_FILTERED_ROWS_CHANGE,
        Workflow.DEFAULT_VERSION, 1) == 1) {
      return unfiltered;
    }
    return sweep;
  }
}
