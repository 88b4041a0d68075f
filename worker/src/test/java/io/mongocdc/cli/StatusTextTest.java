package io.mongocdc.cli;

import static io.mongocdc.workflows.model.BatchFigures.BYTES_READ;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_READ;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_SKIPPED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_EXCLUDED;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_QUARANTINED;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.MirrorTotals;
import io.mongocdc.workflows.model.SnapshotProgress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The status text names the mirror's totals as the batch figures declare them. */
class StatusTextTest {

  private static MirrorStatus status(MirrorTotals totals) {
    MirrorConfig config = new MirrorConfig("orders", "src", "dst", "shop", List.of("orders"), "public",
        MirrorSettings.defaults());
    return new MirrorStatus("orders", MirrorPhase.RUNNING, null, totals.batches(), 0, null, null, null, totals, null,
        null, 0, config, List.of(), List.of(), 0, totals.batches(), null, null, List.of(), null, null, null, null, null);
  }

  @Test
  void theTotalsLineNamesEachTotalledCountAndAFigureByNameHasALineOfItsOwn() {
    MirrorTotals totals = new MirrorTotals(7, BatchFigures.zero().with(EVENTS_READ, 70).with(RECORDS_DELIVERED, 60)
        .with(RECORDS_EXCLUDED, 10).with(BYTES_READ, 7000).with(RECORDS_QUARANTINED, 1)
        .with(EVENTS_SKIPPED, Map.of("futureOp", 2L, "createIndexes", 1L)));

    String text = StatusText.of(status(totals), 0);

    assertTrue(text.contains("\n  totals: 70 events read, 60 records delivered, 10 excluded, 7000 bytes, 1 quarantined\n"),
        text);
    assertTrue(text.contains("\n  events passed over, by type: createIndexes 1, futureOp 2\n"), text);
    assertFalse(StatusText.of(status(MirrorTotals.ZERO), 0).contains("passed over"), "nothing passed over, no line");
  }

  private static MirrorStatus copying(Long copySecondsLeft, Long headroom, SnapshotProgress.State state) {
    MirrorConfig config = new MirrorConfig("orders", "src", "dst", "shop", List.of("orders"), "public",
        MirrorSettings.defaults());
    Checkpoint start = Checkpoint.atOperationTime(1_700_000_000, 1);
    return new MirrorStatus("orders", MirrorPhase.SNAPSHOTTING, null, 0, 0, start, null, null, MirrorTotals.ZERO, null,
        null, 0, config, List.of(), List.of(), 0, 0, headroom, null,
        List.of(new SnapshotProgress("orders", start, state, 4, 1, 1_000, 4_000, 0L, null)), null, null, null, null,
        copySecondsLeft);
  }

  @Test
  void whileACopyRunsItsTimeLeftIsSetAgainstTheOplogHeadroom() {
    // Issue 48, item 4.
    assertTrue(StatusText.of(copying(null, 7_200L, SnapshotProgress.State.COPYING), 0)
        .contains("\n  copy time left: unknown (until a partition has finished) (oplog headroom 7200 s)\n"));
    assertTrue(StatusText.of(copying(600L, 7_200L, SnapshotProgress.State.COPYING), 0)
        .contains("\n  copy time left: 600 s at the rate so far (oplog headroom 7200 s)\n"));
    String outlasts = StatusText.of(copying(6_000L, 7_200L, SnapshotProgress.State.COPYING), 0);
    assertTrue(outlasts.contains("\n  copy time left: 6000 s at the rate so far (oplog headroom 7200 s) (WARNING: the"
        + " copy is expected to take 6000 s, more than three quarters of the 7200 s the oplog still holds"), outlasts);
    assertTrue(StatusText.of(copying(600L, null, SnapshotProgress.State.COPYING), 0)
        .contains("\n  copy time left: 600 s at the rate so far\n"), "no headroom known, none said");
    assertFalse(StatusText.of(copying(0L, 7_200L, SnapshotProgress.State.DONE), 0).contains("copy time left"),
        "no copy under way, no line");
  }
}
