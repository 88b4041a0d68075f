package io.mongocdc.workflows;

import static io.mongocdc.workflows.model.BatchFigures.ATTEMPTS;
import static io.mongocdc.workflows.model.BatchFigures.BYTES_READ;
import static io.mongocdc.workflows.model.BatchFigures.DURATION_MILLIS;
import static io.mongocdc.workflows.model.BatchFigures.END_REASON;
import static io.mongocdc.workflows.model.BatchFigures.EVENTS_READ;
import static io.mongocdc.workflows.model.BatchFigures.RECORDS_DELIVERED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.CarriedState;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorSettings;
import io.mongocdc.workflows.model.MirrorStatus;
import io.mongocdc.workflows.model.OplogSpan;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Status exposes the committed checkpoint's oplog headroom and warns well before history is lost. */
class FlowStateOplogTest {

  private static final BatchFigures FIGURES = BatchFigures.zero().with(EVENTS_READ, 1).with(RECORDS_DELIVERED, 1)
      .with(BYTES_READ, 10).with(DURATION_MILLIS, 5).with(END_REASON, "BATCH_SIZE").with(ATTEMPTS, 1);

  private static FlowState state() {
    return new FlowState(CarriedState.initial(new MirrorConfig("orders", "src", "dst", "shop", List.of("orders"),
        "public", MirrorSettings.defaults())));
  }

  private static MirrorStatus afterBatch(FlowState state, long checkpointSeconds, OplogSpan oplog) {
    Checkpoint checkpoint = Checkpoint.atOperationTime(checkpointSeconds, 1);
    state.committed(new BatchOutcome(1, checkpoint, FIGURES, null, oplog), checkpoint, 0);
    return state.status(checkpointSeconds * 1000);
  }

  @Test
  void showsHeadroomAndWarnsInTheOldestQuarterOfTheWindow() {
    OplogSpan day = new OplogSpan(1_000_000, 1_000_000 + 86_400);

    MirrorStatus healthy = afterBatch(state(), 1_000_000 + 80_000, day);
    assertEquals(80_000, healthy.oplogHeadroomSeconds());
    assertNull(healthy.oplogWarning());

    MirrorStatus behind = afterBatch(state(), 1_000_000 + 3_600, day);
    assertEquals(3_600, behind.oplogHeadroomSeconds());
    assertTrue(behind.oplogWarning().contains("oldest quarter"), behind.oplogWarning());

    MirrorStatus lost = afterBatch(state(), 999_000, day);
    assertTrue(lost.oplogWarning().contains("history is gone"), lost.oplogWarning());
  }

  @Test
  void aSourceThatCannotTellLeavesThemEmpty() {
    MirrorStatus status = afterBatch(state(), 1_000_000, null);
    assertNull(status.oplogHeadroomSeconds());
    assertNull(status.oplogWarning());
  }
}
