package io.mongocdc.activities;

import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.decode.MirrorColumns;
import io.mongocdc.ports.ConnectionWaitLog;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.OplogSpanLog;
import io.mongocdc.ports.QuarantineLog;
import io.mongocdc.ports.SnapshotCatalog;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.metrics.PipelineMetrics;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.PartitionPlanner;
import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.snapshot.SnapshotCopier;
import io.mongocdc.snapshot.SnapshotPosition;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.SnapshotActivity;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.SnapshotPartitionCopied;
import io.mongocdc.workflows.model.SnapshotPartitionRequest;
import io.mongocdc.workflows.model.SnapshotPlan;
import io.mongocdc.workflows.model.SnapshotPlanRequest;
import io.mongocdc.workflows.model.SweepRequest;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.ActivityCompletionException;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The snapshot's activities on the ports: plans come from the source's count and {@code _id}
 * sample and are kept in the catalog; a partition is copied through the destination's copy sink
 * ({@link MirrorDestination#openCopySink}: the batches' sink, giving way to their locks), at the
 * snapshot's start position, a transaction per chunk, and recorded done in the catalog after its
 * last chunk committed (a crash before copies it again, which changes no row already there).
 */
public final class SnapshotActivityImpl implements SnapshotActivity {

  /**
   * A partition's copy commits after this many documents or bytes (the chunk that reaches either
   * ends the transaction): a batch lane that meets its row locks waits one such transaction (tens
   * of milliseconds), and the copy does not spend itself on commits (a commit per chunk of 8
   * documents copied a million documents at a fraction of the speed).
   */
  static final int TRANSACTION_DOCUMENTS = 1_000;
  static final long TRANSACTION_BYTES = 4L << 20;

  private static final Logger log = LoggerFactory.getLogger(SnapshotActivityImpl.class);
  /** Documents the source sends per round trip. */
  static final int CURSOR_BATCH_SIZE = 1_000;

  private final QuarantineLog quarantine;
  private final MirrorRedactions redactions;
  private final MirrorSourceFactory source;
  private final MirrorDestination destination;
  private final SnapshotCatalog catalog;
  private final PipelineMetrics metrics;
  private final ConnectionTurns connectionTurns;
  private final OplogSpanReader oplogSpans;

  /**
   * @param quarantine where documents the destination cannot hold go under {@code poisonEventPolicy} QUARANTINE
   * @param connectionWaits where a partition says it waits for its destination connections
   * @param oplogSpans where a copied partition leaves the source's oplog span
   */
  public SnapshotActivityImpl(MirrorSourceFactory source, MirrorDestination destination, SnapshotCatalog catalog,
      PipelineMetrics metrics, QuarantineLog quarantine, ConnectionWaitLog connectionWaits, OplogSpanLog oplogSpans,
      MirrorRedactions redactions) {
    this.oplogSpans = new OplogSpanReader(source, oplogSpans);
    this.connectionTurns = new ConnectionTurns(destination, connectionWaits);
    this.redactions = Objects.requireNonNull(redactions, "redactions");
    this.quarantine = Objects.requireNonNull(quarantine, "quarantine");
    this.source = Objects.requireNonNull(source, "source");
    this.destination = Objects.requireNonNull(destination, "destination");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
  }

  @Override
  public List<String> listSourceCollections(MirrorConfig mirror) {
    try (SnapshotSource snapshot = source.snapshotSource(mirror)) {
      return snapshot.collectionNames();
    }
  }

  /**
   * A copy of a collection whose history is on starts that history over (history turned on again,
   * or for the first time): the copy writes an insert for every current document, and here, before
   * it, the documents deleted while the history was off get their delete. Before the plan is stored,
   * so a call that failed in between marks them (idempotently) again.
   */
  private void markDeletesInHistory(MirrorConfig mirror, String collection, StreamPosition start) {
    Namespace namespace = new Namespace(mirror.sourceDatabase(), collection);
    long marked = destination.markDeletesInHistory(mirror, namespace,
        destination.tableResolver(mirror).tableFor(namespace), SnapshotPosition.tokenOf(start),
        SnapshotPosition.commitTimeOf(start));
    if (marked > 0) {
      log.info("mirror {}: {} documents of {} deleted while its history was off got their delete in it",
          mirror.name(), marked, collection);
    }
  }

  @Override
  public SnapshotPlan planSnapshot(SnapshotPlanRequest request) {
    return plan(request);
  }

  /**
   * The stored plan for the request's start, or a new plan, stored before it is returned (it
   * replaces the stored one). A fresh request always plans anew: a collection copied again may
   * start where its finished copy started.
   */
  private SnapshotPlan plan(SnapshotPlanRequest request) {
    MirrorConfig mirror = request.mirror();
    String collection = request.collection();
    StreamPosition start = Checkpoints.toPosition(request.position());
    Optional<SnapshotPlan> stored = request.fresh() ? Optional.empty() : catalog.plan(mirror.name(), collection, start);
    if (stored.isPresent()) {
      return stored.get();
    }
    markDeletesInHistory(mirror, collection, start);
    String filter = mirror.settings().snapshot().filterFor(collection);
    SnapshotFilter.parse(collection, filter);
    int perPartition = mirror.settings().snapshot().documentsPerPartition();
    List<IdRange> ranges;
    long estimated;
    try (SnapshotSource snapshot = source.snapshotSource(mirror)) {
      estimated = snapshot.estimatedCount(collection);
      List<BsonValue> sample = snapshot.sampleIds(collection, PartitionPlanner.sampleSizeFor(estimated, perPartition));
      ranges = PartitionPlanner.plan(estimated, sample, perPartition);
    }
    SnapshotPlan plan = catalog.storePlan(mirror.name(), collection, start, filter, estimated,
        ranges.stream().map(IdRange::toJson).toList());
    log.info("mirror {}: snapshot of {} planned: about {} documents in {} partitions, from {}",
        mirror.name(), collection, estimated, plan.partitionsTotal(), start);
    return plan;
  }

  @Override
  public SnapshotPartitionCopied copySnapshotPartition(SnapshotPartitionRequest request) {
    ActivityExecutionContext context = Activity.getExecutionContext();
    MirrorConfig mirror = request.mirror();
    String collection = request.collection();
    int partition = request.partition();
    try {
      SnapshotCatalog.PlannedPartition planned = catalog.partition(mirror.name(), collection, partition);
      if (planned.done()) {
        log.info("mirror {}: snapshot partition {} of {} was copied already; not read again",
            mirror.name(), partition, collection);
        return new SnapshotPartitionCopied(collection, partition, planned.documents(), planned.bytes(), null,
            oplogSpans.readQuietly(mirror));
      }
      catalog.partitionStarted(mirror.name(), collection, partition);
      StreamPosition start = Checkpoints.toPosition(request.position());
      IdRange range = IdRange.fromJson(planned.idRange());
      BsonDocument filter = SnapshotFilter.parse(collection, mirror.settings().snapshot().filterFor(collection));
      Namespace namespace = new Namespace(mirror.sourceDatabase(), collection);
      String table = destination.tableResolver(mirror).tableFor(namespace);
      TranscodingJsonRenderer renderer = TranscodingJsonRenderer.relaxed();
      MirrorRedaction redaction = redactions.of(mirror);
      SnapshotCopier copier = new SnapshotCopier(renderer, new IdKeyRenderer(), mirror.settings().chunkSize(),
          PoisonEventPolicy.of(mirror, destination, quarantine, PoisonEventPolicy.SNAPSHOT_BATCH),
          MirrorColumns.of(mirror, renderer), TRANSACTION_DOCUMENTS, TRANSACTION_BYTES);
      SnapshotCopier.Copied copied;
      Map<String, Map<String, Long>> drift;
      SnapshotHeartbeat started = new SnapshotHeartbeat(collection, partition, 0);
      // What a wait for connections heartbeats: the progress so far when the copy gave way to a batch.
      AtomicReference<SnapshotHeartbeat> latest = new AtomicReference<>(started);
      try (ConnectionTurns.CopyConnections connections = connectionTurns.takeForCopy(context::heartbeat, mirror, 1,
              since -> latest.get(), metrics.mirror(mirror.name()), "snapshot partition " + partition + " of "
                  + collection);
          SnapshotSource snapshot = source.snapshotSource(mirror);
          DocumentCursor cursor = RedactingCursor.of(snapshot.open(collection, range, filter, CURSOR_BATCH_SIZE),
              redaction.of(collection));
          RecordSink sink = destination.openCopySink(mirror, connections);
          PartitionHeartbeat heartbeat = PartitionHeartbeat.ofActivity(mirror.name(), "snapshot", started,
              () -> {
                cursor.close();
                // Also ends a pause in which the copy gives way to a batch's locks.
                sink.abort(new IllegalStateException("the activity's heartbeat failed: cancelled or timed out"));
              })) {
        try {
          copied = copier.copy(cursor, namespace, table, SnapshotPosition.tokenOf(start),
              SnapshotPosition.commitTimeOf(start), sink,
              (documents, bytes) -> {
                latest.set(new SnapshotHeartbeat(collection, partition, documents));
                heartbeat.progress(latest.get());
              });
        } catch (Exception e) {
          // A cancellation learnt by the timer closed the cursor: report the cancellation, not the closed cursor.
          heartbeat.throwIfFailed();
          throw e;
        }
        drift = sink.driftCommitted();
      }
      catalog.partitionDone(mirror.name(), collection, partition, copied.documents(), copied.bytes(), drift);
      metrics.mirror(mirror.name()).onSnapshotPartition(copied.documents());
      metrics.mirror(mirror.name()).onColumnDrift(drift);
      log.info("mirror {}: snapshot partition {} of {} copied: {} documents{}", mirror.name(), partition, collection,
          copied.documents(), copied.quarantined() == 0 ? ""
              : ", " + copied.quarantined() + " set aside in quarantined_events");
      // The range holds _id values: kept out of the default log.
      log.debug("mirror {}: snapshot partition {} of {} was {}", mirror.name(), partition, collection, range.describe());
      return new SnapshotPartitionCopied(collection, partition, copied.documents(), copied.bytes(), drift,
          oplogSpans.readQuietly(mirror));
    } catch (ActivityCompletionException e) {
      throw e;
    } catch (InterruptedException e) {
      throw ActivityInterruption.workerShuttingDown(ActivityNames.COPY_SNAPSHOT_PARTITION,
          "the partition is copied again");
    } catch (Exception e) {
      ActivityInterruption.rethrowIfCompletion(e);
      ApplicationFailure failure = FailureClassifier.classify(ActivityNames.COPY_SNAPSHOT_PARTITION, e);
      log.warn("mirror {}: snapshot partition {} of {} failed: [{}] {}", mirror.name(), partition, collection,
          failure.getType(), failure.getOriginalMessage());
      throw failure;
    }
  }

  @Override
  public List<String> listRecordedCollections(MirrorConfig mirror) {
    return destination.recordedCollections(mirror);
  }

  @Override
  public long sweepUnseenRows(SweepRequest request) {
    MirrorConfig mirror = request.mirror();
    Namespace namespace = new Namespace(mirror.sourceDatabase(), request.collection());
    StreamPosition start = Checkpoints.toPosition(request.position());
    long deleted = destination.deleteRowsOlderThan(mirror, namespace,
        destination.tableResolver(mirror).tableFor(namespace), SnapshotPosition.tokenOf(start),
        SnapshotPosition.commitTimeOf(start));
    log.info("mirror {}: {} rows of {} the copy from {} did not see were deleted", mirror.name(), deleted,
        request.collection(), start);
    return deleted;
  }

  /** What a running copy heartbeats: shown as the activity's progress in the Temporal UI. */
  public record SnapshotHeartbeat(String collection, int partition, long documentsCopied) {}
}
