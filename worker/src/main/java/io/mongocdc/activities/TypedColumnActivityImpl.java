package io.mongocdc.activities;

import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.workflows.TypedColumnActivity;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.TypedColumnsAligned;
import io.mongocdc.workflows.model.TypedColumnsRequest;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The typed columns' work outside batches, on the mirror's destination, heartbeating on a timer as it goes. */
public final class TypedColumnActivityImpl implements TypedColumnActivity {

  private static final Logger log = LoggerFactory.getLogger(TypedColumnActivityImpl.class);

  private final MirrorDestination destination;

  public TypedColumnActivityImpl(MirrorDestination destination) {
    this.destination = Objects.requireNonNull(destination, "destination");
  }

  @Override
  public TypedColumnsAligned alignTypedColumns(TypedColumnsRequest request) {
    MirrorConfig mirror = request.mirror();
    try (PartitionHeartbeat heartbeat = PartitionHeartbeat.ofActivity(mirror.name(), "typed-columns", 0L)) {
      long[] transactions = {0};
      TypedColumnsAligned aligned = destination.alignTypedColumns(request,
          () -> heartbeat.progress(++transactions[0]));
      log.info("mirror {}: typed columns filled in {} rows{}", mirror.name(), aligned.rowsFilled(),
          aligned.resumeAfter() == null ? ", done" : ", more to fill");
      return aligned;
    }
  }

  @Override
  public int createTypedColumnIndexes(MirrorConfig mirror) {
    try (PartitionHeartbeat heartbeat = PartitionHeartbeat.ofActivity(mirror.name(), "index", 0L)) {
      int[] done = {0};
      return destination.createTypedColumnIndexes(mirror, () -> heartbeat.progress(++done[0]));
    }
  }
}
