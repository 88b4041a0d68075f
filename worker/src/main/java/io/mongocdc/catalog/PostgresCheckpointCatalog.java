package io.mongocdc.catalog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.activities.CheckpointCatalog;
import io.mongocdc.activities.Checkpoints;
import io.mongocdc.pipeline.StageTimings;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.CommitResult;
import io.mongocdc.workflows.model.MirrorConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The activities' catalog port on the PostgreSQL catalog: mirrors and peers (names and
 * settings only), the monotonic checkpoint, and one batch-history row per batch.
 */
public final class PostgresCheckpointCatalog implements CheckpointCatalog {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONTROL_EVENT = "CONTROL_EVENT";

  private final Catalog catalog;

  public PostgresCheckpointCatalog(Catalog catalog) {
    this.catalog = catalog;
  }

  @Override
  public Optional<Checkpoint> register(MirrorConfig mirror) {
    catalog.upsertPeer(mirror.sourcePeer(), Catalog.PeerKind.MONGODB, "{}");
    catalog.upsertPeer(mirror.destinationPeer(), Catalog.PeerKind.POSTGRES, "{}");
    if (catalog.mirror(mirror.name()).isEmpty()) {
      catalog.createMirror(mirror.name(), mirror.sourcePeer(), mirror.destinationPeer(), configJson(mirror));
    }
    catalog.setMirrorStatus(mirror.name(), Catalog.MirrorStatus.RUNNING, null);
    return committed(mirror.name());
  }

  @Override
  public CommitResult commit(String mirror, long batchId, Checkpoint checkpoint, BatchFigures figures) {
    StreamPosition position = Checkpoints.toPosition(checkpoint);
    Instant ended = Instant.now();
    Duration took = Duration.ofMillis(figures.durationMillis());
    catalog.batches().record(new BatchReport(
        mirror,
        batchId,
        ended.minus(took),
        ended,
        new BatchReport.OperationCounts(figures.recordsDelivered(), figures.bytesRead(), 0, 0, 0, 0),
        null,
        position.tokenOrNull(),
        figures.stageMillis() == null ? null : StageTimings.ofMillis(took, figures.stageMillis()),
        figures.endReason(),
        null,
        java.util.List.of()));
    CheckpointStore.CommitResult result = catalog.checkpoints().commit(mirror, batchId, position);
    if (CONTROL_EVENT.equals(figures.endReason())) {
      // The workflow pauses the mirror; the catalog says so too, for operators reading plain SQL.
      catalog.setMirrorStatus(mirror, Catalog.MirrorStatus.PAUSED, "batch " + batchId + " stopped just before a drop,"
          + " rename, dropDatabase or invalidate event (control event policy PAUSE); the mirror's status names it");
    } else {
      catalog.setMirrorStatus(mirror, Catalog.MirrorStatus.RUNNING, null);
    }
    return new CommitResult(Checkpoints.of(result.current().position()),
        result.outcome() == CheckpointStore.Outcome.APPLIED);
  }

  @Override
  public Optional<Checkpoint> committed(String mirror) {
    return catalog.checkpoints().load(mirror).map(stored -> Checkpoints.of(stored.position()));
  }

  @Override
  public void forget(String mirror) {
    catalog.forgetMirror(mirror);
  }

  private static String configJson(MirrorConfig mirror) {
    try {
      return JSON.writeValueAsString(mirror);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the mirror's configuration as JSON", e);
    }
  }
}
