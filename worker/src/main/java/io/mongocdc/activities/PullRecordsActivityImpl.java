package io.mongocdc.activities;

import io.mongocdc.ports.ConnectionLease;
import io.mongocdc.ports.ConnectionWaitLog;
import io.mongocdc.ports.FailedAttemptLog;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.QuarantineLog;
import io.mongocdc.ports.SnapshotCatalog;
import io.mongocdc.ports.OplogSpanLog;
import io.mongocdc.ports.VisibilityLog;
import io.mongocdc.metrics.MirrorMetrics;
import io.mongocdc.metrics.PipelineMetrics;
import io.mongocdc.decode.ChangeEventDecoder;
import io.mongocdc.decode.Namespace;
import io.mongocdc.pipeline.CopyReplays;
import io.mongocdc.pipeline.DecodeThreads;
import io.mongocdc.pipeline.DecodedBytesBudget;
import io.mongocdc.pipeline.Freshness;
import io.mongocdc.pipeline.ProgressListener;
import io.mongocdc.pipeline.PullProgress;
import io.mongocdc.pipeline.PullRecords;
import io.mongocdc.pipeline.PullRecordsException;
import io.mongocdc.pipeline.PullResult;
import io.mongocdc.secrets.Redaction;
import io.mongocdc.source.ChangeStreamOpener;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.PullRecordsActivity;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.BatchFreshness;
import io.mongocdc.workflows.model.BatchOutcome;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.OplogSpan;
import io.mongocdc.workflows.model.PullRecordsRequest;
import io.mongocdc.workflows.model.TableFigures;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.ActivityCompletionException;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the PullRecords core for one batch as a Temporal activity.
 *
 * <p>Progress becomes heartbeats (delivered checkpoint and counts). A heartbeat that reports
 * cancellation throws, which cancels the pull promptly; the exception is rethrown so Temporal
 * records the activity as cancelled. A retry of the same batch starts from the last heartbeat's
 * checkpoint when that is later than the committed one, so nothing delivered is read twice and
 * nothing is lost.
 */
public final class PullRecordsActivityImpl implements PullRecordsActivity {

  private static final Logger log = LoggerFactory.getLogger(PullRecordsActivityImpl.class);

  private final MirrorSourceFactory source;
  private final MirrorDestination destination;
  private final PullTuning tuning;
  private final LongSupplier clock;
  private final PipelineMetrics metrics;
  private final FailedAttemptLog failedAttempts;
  private final QuarantineLog quarantine;
  private final VisibilityLog visibility;
  /** After a batch that ended: the source's oplog span, left in the catalog too. */
  private final OplogSpanReader oplogSpans;
  private final ConnectionTurns connectionTurns;
  private final MirrorRedactions redactions;
  private final SnapshotCatalog snapshots;
  /** One for every pull this worker runs: its mirrors share one heap. */
  private final DecodedBytesBudget decodedBytes;
  /** Shared by every pull of this worker: its mirrors share its cores. */
  private final DecodeThreads decodeThreads;

  /**
   * @param clock the pipeline's nanosecond clock (idle timeout, batch duration)
   * @param metrics where each batch's progress and figures are published
   * @param failedAttempts where a failed attempt is recorded before it is reported to Temporal
   * @param quarantine where poison events go under {@code poisonEventPolicy} QUARANTINE
   * @param visibility where a running batch reports how far the visible rows reach
   * @param connectionWaits where a batch says it waits for its destination connections
   * @param oplogSpans where a batch that ended reports the source's oplog span
   * @param snapshots when the mirror's copies finished: a batch's freshness leaves out what it replays over one
   */
  public PullRecordsActivityImpl(MirrorSourceFactory source, MirrorDestination destination, PullTuning tuning,
      LongSupplier clock, PipelineMetrics metrics, FailedAttemptLog failedAttempts, QuarantineLog quarantine,
      VisibilityLog visibility, ConnectionWaitLog connectionWaits, OplogSpanLog oplogSpans, MirrorRedactions redactions,
      SnapshotCatalog snapshots) {
    this.snapshots = Objects.requireNonNull(snapshots, "snapshots");
    this.oplogSpans = new OplogSpanReader(source, Objects.requireNonNull(oplogSpans, "oplogSpans"));
    this.connectionTurns = new ConnectionTurns(destination, connectionWaits);
    this.redactions = Objects.requireNonNull(redactions, "redactions");
    this.visibility = Objects.requireNonNull(visibility, "visibility");
    this.quarantine = Objects.requireNonNull(quarantine, "quarantine");
    this.failedAttempts = Objects.requireNonNull(failedAttempts, "failedAttempts");
    this.source = Objects.requireNonNull(source, "source");
    this.destination = Objects.requireNonNull(destination, "destination");
    this.tuning = Objects.requireNonNull(tuning, "tuning");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.decodedBytes = new DecodedBytesBudget(tuning.maxDecodedBytesInFlight());
    metrics.decodedBytesBudget(decodedBytes);
    this.decodeThreads = new DecodeThreads(tuning.decodeThreads());
    metrics.decodeThreads(decodeThreads);
  }

  @Override
  public BatchOutcome pullRecords(PullRecordsRequest request) {
    ActivityExecutionContext context = Activity.getExecutionContext();
    MirrorConfig mirror = request.mirror();
    long batchId = request.batchId();
    int attempt = Math.max(1, context.getInfo().getAttempt());
    // Kept from its start: an attempt lost with its worker cannot say it failed.
    attemptQuietly(mirror, batchId, attempt, () -> failedAttempts.started(mirror.name(), batchId, attempt));
    PullHeartbeat previous = context.getHeartbeatDetails(PullHeartbeat.class)
        .filter(h -> h.batchId() == batchId && h.delivered() != null)
        .orElse(null);
    StreamPosition requested;
    StreamPosition delivered;
    try {
      requested = Checkpoints.toPosition(request.start());
      delivered = previous == null ? null : Checkpoints.toPosition(previous.delivered());
    } catch (RuntimeException e) {
      throw failed(mirror, batchId, attempt, e);
    }
    boolean resumes = delivered != null && delivered.isAfter(requested);
    StreamPosition start = resumes ? delivered : requested;
    // What the earlier attempts delivered, as their last heartbeat says: a retry resumes after it and counts it once.
    BatchFigures before = resumes ? previous.figures() : BatchFigures.none();
    if (resumes) {
      log.info("mirror {} batch {} attempt {}: resuming from the last heartbeat, {}",
          mirror.name(), batchId, attempt, start);
    }
    MirrorMetrics mirrorMetrics = metrics.mirror(mirror.name());
    long asked = clock.getAsLong();
    try (ConnectionLease connections = reserveConnections(context, mirror, batchId, attempt, previous, mirrorMetrics);
        LaneSinks sink = LaneSinks.open(destination, mirror, batchId)) {
      TurnAfterWaiting turn = new TurnAfterWaiting(Duration.ofSeconds(mirror.settings().maxBatchDurationSeconds()),
          tuning.connectionTurn(), context.getInfo().getStartToCloseTimeout());
      PullRecords pull = afterWaiting(pullRecords(mirror), turn, Duration.ofNanos(clock.getAsLong() - asked))
          .withPoisonEvents(PoisonEventPolicy.of(mirror, destination, quarantine, batchId))
          .withDecodeThreads(decodeThreads).withFreshnessListener(mirrorMetrics::onVisible)
          .withCopyReplays(copyReplaysQuietly(mirror))
          .withTurns(new ConnectionTurn(connections, tuning.connectionTurn(), System::currentTimeMillis));
      VisibleThroughReports visibleThrough = new VisibleThroughReports(mirror.name(), visibility);
      ProgressListener heartbeat = progress -> {
        mirrorMetrics.onProgress(progress);
        context.heartbeat(heartbeatOf(batchId, progress, before, attempt, sink));
        visibleThrough.report(progress.freshness());
      };
      try {
        PullResult result = pull.pull(start, sink.lanes(), heartbeat);
        mirrorMetrics.onBatch(result);
        OplogSpan oplog = oplogSpans.readQuietly(mirror);
        if (oplog != null) {
          mirrorMetrics.onOplogHeadroom(java.time.Duration.ofSeconds(
              Math.max(0, oplog.headroomSeconds(Checkpoints.of(result.checkpoint())))));
        }
        long pruned = pruneHistoryQuietly(mirror);
        BatchOutcome outcome = outcome(batchId, result, sink, before, attempt, oplog, pruned);
        mirrorMetrics.onColumnDrift(sink.committedDrift());
        log.info("mirror {} batch {}: {} events, {} records delivered, {} excluded, ended by {}, stage ms {},"
                + " checkpoint {}", mirror.name(), batchId, outcome.figures().get(BatchFigures.EVENTS_READ),
            outcome.figures().get(BatchFigures.RECORDS_DELIVERED), outcome.figures().get(BatchFigures.RECORDS_EXCLUDED),
            result.endReason(), outcome.figures().get(BatchFigures.STAGE_MILLIS), outcome.checkpoint().describe());
        attemptQuietly(mirror, batchId, attempt, () -> failedAttempts.ended(mirror.name(), batchId, attempt));
        return outcome;
      } catch (PullRecordsException e) {
        mirrorMetrics.onBatchFailed();
        ActivityInterruption.rethrowIfCompletion(e);
        // The SDK sends the last heartbeat with the failure: the retry resumes after this.
        heartbeatQuietly(context, heartbeatOf(batchId, e.delivered(), before, attempt, sink));
        throw failed(mirror, batchId, attempt, e);
      }
    } catch (InterruptedException e) {
      throw recorded(mirror, batchId, attempt, ActivityInterruption.workerShuttingDown(ActivityNames.PULL_RECORDS,
          "the batch is retried from its last delivered checkpoint"));
    } catch (ActivityCompletionException e) {
      // Cancelled, not failed: its row is closed, so the next attempt does not take it for lost.
      attemptQuietly(mirror, batchId, attempt, () -> failedAttempts.ended(mirror.name(), batchId, attempt));
      throw e;
    } catch (ApplicationFailure e) {
      throw e;
    } catch (RuntimeException | OutOfMemoryError e) {
      // An OutOfMemoryError outside the pipeline's threads reaches here unwrapped.
      throw failed(mirror, batchId, attempt, e);
    }
  }

  /**
   * The batch's destination connections, all at once: a waiting batch heartbeats the last
   * heartbeat's details (so a retry still resumes after what earlier attempts delivered), marked
   * as waiting for {@code mirror status}.
   */
  private ConnectionLease reserveConnections(ActivityExecutionContext context, MirrorConfig mirror, long batchId,
      int attempt, PullHeartbeat previous, MirrorMetrics mirrorMetrics) throws InterruptedException {
    PullHeartbeat last = previous != null ? previous : PullHeartbeat.nothingYet(batchId, attempt);
    return connectionTurns.take(context::heartbeat, mirror, destination.applyLanes(mirror),
        since -> last.waitingSince(since.toEpochMilli()), mirrorMetrics, "batch " + batchId);
  }

  /**
   * The pipeline of one batch of {@code mirror}.
   *
   * @throws InvalidMirrorConfigurationException if a mirror setting the pipeline reads cannot work
   */
  private PullRecords pullRecords(MirrorConfig mirror) {
    ChangeStreamOpener opener = source.openerFor(mirror);
    ChangeEventDecoder decoder = MirrorDecoder.of(mirror, destination).redacting(redactions.of(mirror)::changeEvent);
    try {
      return new PullRecords(mirror.name(), opener, decoder, mirror.settings(), tuning.pullSettings(), clock,
          decodedBytes);
    } catch (IllegalArgumentException e) {
      throw new InvalidMirrorConfigurationException("settings: " + e.getMessage());
    }
  }

  /** The batch once it has waited {@code waited} for its connections ({@link TurnAfterWaiting}). */
  private static PullRecords afterWaiting(PullRecords pull, TurnAfterWaiting turn, Duration waited) {
    return turn.limit(waited).map(pull::withTimeLimit).orElse(pull);
  }

  /**
   * What a retry of the batch needs to resume after the delivered records and to count them once.
   * The records are counted from the pipeline's delivered tallies, which move with its checkpoint,
   * not from the lanes' commits: when one lane committed a round and another then failed, the
   * committed part lies beyond the checkpoint, and the retry replays and counts it.
   */
  private static PullHeartbeat heartbeatOf(long batchId, PullProgress progress, BatchFigures before, int attempt,
      LaneSinks sink) {
    Map<String, TableFigures> delivered = DeliveredTables.kept(progress.deliveredByTable(), sink::excludes);
    BatchFigures thisAttempt = progress.figures()
        .with(BatchFigures.EVENTS_READ, progress.eventsRead())
        .with(BatchFigures.RECORDS_DELIVERED, DeliveredTables.records(delivered))
        .with(BatchFigures.STAGE_MILLIS, progress.timings().millisByStage())
        .with(BatchFigures.TABLES, delivered)
        .with(BatchFigures.FIRST_POSITION, dataOf(progress.firstDelivered()))
        .with(BatchFigures.HISTORY_ROWS_APPENDED, sink.committedHistoryRows());
    return new PullHeartbeat(batchId, Checkpoints.of(progress.deliveredCheckpoint()), attempt,
        before.followedBy(thisAttempt),
        progress.freshness() == null ? null : progress.freshness().visibleThrough().toEpochMilli(), null);
  }

  /**
   * The changes this batch replays over a snapshot copy that made them visible already, from
   * when each collection's copy finished. A catalog that cannot tell leaves every record counted:
   * a metric never fails a batch.
   */
  private CopyReplays copyReplaysQuietly(MirrorConfig mirror) {
    Map<String, Instant> finished;
    try {
      finished = snapshots.copiesFinished(mirror.name());
    } catch (RuntimeException e) {
      log.warn("mirror {}: cannot read when its snapshot copies finished; this batch's freshness counts the"
          + " changes it replays over them: {}", mirror.name(), Redaction.redact(String.valueOf(e.getMessage())));
      return CopyReplays.NONE;
    }
    Map<Namespace, Instant> ends = new HashMap<>();
    finished.forEach((collection, end) -> ends.put(new Namespace(mirror.sourceDatabase(), collection), end));
    return CopyReplays.of(ends);
  }

  /**
   * History retention after a delivered batch: a bounded share of the expired rows. A failure is
   * logged and leaves them for the next batch; it never fails a batch that delivered.
   */
  private long pruneHistoryQuietly(MirrorConfig mirror) {
    if (mirror.settings().history().retentionDays() == 0 || mirror.settings().history().collections().isEmpty()) {
      return 0;
    }
    try {
      return destination.pruneHistory(mirror);
    } catch (RuntimeException e) {
      log.warn("mirror {}: cannot prune its history tables, left for the next batch: {}", mirror.name(),
          Redaction.redact(String.valueOf(e.getMessage())));
      return 0;
    }
  }

  private static String dataOf(ResumeToken token) {
    return token == null ? null : token.data();
  }

  private static BatchOutcome outcome(long batchId, PullResult result, LaneSinks sink, BatchFigures before,
      int attempt, OplogSpan oplog, long historyPruned) {
    Map<String, TableFigures> thisAttempt = DeliveredTables.kept(result.tables(), sink::excludes);
    Map<String, Long> byTable = new TreeMap<>();
    thisAttempt.forEach((table, figures) -> byTable.put(table, figures.records()));
    BatchFigures figures = before.followedBy(BatchFigures.zero().plus(result.figures())
        .with(BatchFigures.EVENTS_READ, result.eventsRead())
        .with(BatchFigures.RECORDS_DELIVERED, DeliveredTables.records(thisAttempt))
        .with(BatchFigures.RECORDS_EXCLUDED, sink.committedExcluded())
        .with(BatchFigures.BYTES_READ, result.bytesRead())
        .with(BatchFigures.RECORDS_BY_TABLE, byTable)
        .with(BatchFigures.DURATION_MILLIS, result.timings().total().toMillis())
        .with(BatchFigures.END_REASON, result.endReason().name())
        .with(BatchFigures.ATTEMPTS, attempt)
        .with(BatchFigures.STAGE_MILLIS, result.timings().millisByStage())
        .with(BatchFigures.TABLES, thisAttempt)
        .with(BatchFigures.FIRST_POSITION, dataOf(result.firstPosition()))
        .with(BatchFigures.HISTORY_ROWS_APPENDED, sink.committedHistoryRows())
        .with(BatchFigures.HISTORY_ROWS_PRUNED, historyPruned)
        .with(BatchFigures.COLUMN_DRIFT, sink.committedDrift())
        .with(BatchFigures.FRESHNESS, freshnessOf(result.freshness())));
    String stoppedAt = result.stoppedAt() == null ? null : result.stoppedAt().describe();
    return new BatchOutcome(batchId, Checkpoints.of(result.checkpoint()), figures, stoppedAt, oplog);
  }

  private static BatchFreshness freshnessOf(Freshness freshness) {
    return freshness == null ? null : new BatchFreshness(freshness.p50Millis(), freshness.p99Millis(),
        freshness.maxMillis(), freshness.visibleThrough().toEpochMilli());
  }

  private static void heartbeatQuietly(ActivityExecutionContext context, PullHeartbeat details) {
    try {
      context.heartbeat(details);
    } catch (ActivityCompletionException e) {
      // Cancelled meanwhile: the failure below is reported anyway.
    }
  }

  private ApplicationFailure failed(MirrorConfig mirror, long batchId, int attempt, Throwable e) {
    ApplicationFailure failure = FailureClassifier.classify(ActivityNames.PULL_RECORDS, e);
    log.warn("mirror {} batch {} failed: [{}] {}", mirror.name(), batchId, failure.getType(), failure.getOriginalMessage());
    return recorded(mirror, batchId, attempt, failure);
  }

  /** Writes an attempt's trace; a catalog that cannot take it changes nothing. */
  private static void attemptQuietly(MirrorConfig mirror, long batchId, int attempt, Runnable write) {
    try {
      write.run();
    } catch (RuntimeException e) {
      log.warn("mirror {} batch {}: cannot record attempt {} in the catalog: {}", mirror.name(), batchId, attempt,
          Redaction.redact(String.valueOf(e.getMessage())));
    }
  }

  /** Leaves the failed attempt's trace in the catalog; a catalog that cannot take it changes nothing. */
  private ApplicationFailure recorded(MirrorConfig mirror, long batchId, int attempt, ApplicationFailure failure) {
    try {
      failedAttempts.record(mirror.name(), batchId, attempt, failure.getType(), failure.getOriginalMessage());
    } catch (RuntimeException e) {
      log.warn("mirror {} batch {}: cannot record the failed attempt {} in the catalog: {}", mirror.name(), batchId,
          attempt, Redaction.redact(String.valueOf(e.getMessage())));
    }
    return failure;
  }
}
