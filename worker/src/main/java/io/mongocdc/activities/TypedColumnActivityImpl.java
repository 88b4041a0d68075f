package io.mongocdc.activities;

import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.TypedColumnActivity;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import java.time.Duration;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The typed columns' work outside batches, on the mirror's destination, heartbeating on a timer as it goes. */
public final class TypedColumnActivityImpl implements TypedColumnActivity {

  private static final Logger log = LoggerFactory.getLogger(TypedColumnActivityImpl.class);
  private static final Duration HEARTBEAT_EVERY = Duration.ofSeconds(5);

  private final MirrorDestination destination;

  public TypedColumnActivityImpl(MirrorDestination destination) {
    this.destination = Objects.requireNonNull(destination, "destination");
  }

  @Override
  public TypedColumnsAligned alignTypedColumns(TypedColumnsRequest request) {
    MirrorConfig mirror = request.mirror();
    return FailureClassifier.classified(ActivityNames.ALIGN_TYPED_COLUMNS, () -> {
      ActivityExecutionContext context = Activity.getExecutionContext();
      try (PartitionHeartbeat heartbeat = new PartitionHeartbeat(context::heartbeat, 0L, HEARTBEAT_EVERY,
          "mongo-cdc-" + mirror.name() + "-typed-columns-heartbeat", () -> {})) {
        long[] transactions = {0};
        TypedColumnsAligned aligned = destination.alignTypedColumns(request,
            () -> heartbeat.progress(++transactions[0]));
        log.info("mirror {}: typed columns filled in {} rows{}", mirror.name(), aligned.rowsFilled(),
            aligned.resumeAfter() == null ? ", done" : ", more to fill");
        return aligned;
      }
    });
  }

  @Override
  public int createTypedColumnIndexes(MirrorConfig mirror) {
    return FailureClassifier.classified(ActivityNames.CREATE_TYPED_COLUMN_INDEXES, () -> {
      ActivityExecutionContext context = Activity.getExecutionContext();
      try (PartitionHeartbeat heartbeat = new PartitionHeartbeat(context::heartbeat, 0L, HEARTBEAT_EVERY,
          "mongo-cdc-" + mirror.name() + "-index-heartbeat", () -> {})) {
        int[] done = {0};
        return destination.createTypedColumnIndexes(mirror, () -> heartbeat.progress(++done[0]));
      }
    });
  }
}
