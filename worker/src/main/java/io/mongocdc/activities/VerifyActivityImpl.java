package io.mongocdc.activities;

import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.ports.DestinationRows;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.decode.MirrorColumns;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.ports.MirrorSourceFactory;
import io.mongocdc.ports.VerifyCatalog;
import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.DocumentProjector;
import io.mongocdc.decode.IdKeyRenderer;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.decode.JsonbSanitizer;
import io.mongocdc.snapshot.DocumentCursor;
import io.mongocdc.snapshot.IdRange;
import io.mongocdc.snapshot.PartitionPlanner;
import io.mongocdc.snapshot.SnapshotPosition;
import io.mongocdc.snapshot.SnapshotSource;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.verify.Divergence;
import io.mongocdc.verify.DocumentFingerprint;
import io.mongocdc.verify.RangeDigest;
import io.mongocdc.verify.ReadBound;
import io.mongocdc.verify.ReadPacer;
import io.mongocdc.workflows.ActivityNames;
import io.mongocdc.workflows.VerifyActivity;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.VerifyPlan;
import io.mongocdc.workflows.model.VerifyRangeRequest;
import io.mongocdc.workflows.model.VerifyRangeResult;
import io.mongocdc.workflows.model.VerifyRequest;
import io.mongocdc.workflows.model.VerifyResult;
import io.temporal.client.ActivityCompletionException;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verify's activities on the ports. A range is judged in four steps:
 *
 * <ol>
 *   <li>read it on both sides (the source through a {@link ReadPacer}) into a {@link RangeDigest}
 *       each: count, order-independent hash, and each key's fingerprint;
 *   <li>if count or hash differ, narrow down to the {@code _id}s whose fingerprints differ;
 *   <li>judge those once the mirror has passed the source reads ({@link ReadBound}): read them
 *       again from the source, wait for the checkpoint, and compare with the destination rows
 *       whose position shows no change came meanwhile; a row that changed is tried again;
 *   <li>with {@code repair}, re-copy the differing documents through the destination sink at a
 *       position just after the re-read, and delete the rows the source no longer has: a change
 *       streamed after the read still wins.
 * </ol>
 */
public final class VerifyActivityImpl implements VerifyActivity {

  private static final Logger log = LoggerFactory.getLogger(VerifyActivityImpl.class);
  /** Differing keys a range keeps in {@code verify_ranges.sample_ids}. */
  static final int SAMPLE_IDS = 20;
  /** Rounds of re-reading an {@code _id} that keeps changing before it is called unsettled. */
  static final int SETTLE_ROUNDS = 5;
  /** How often the catalog's checkpoint is asked while waiting for the mirror to pass a read. */
  static final Duration CHECKPOINT_POLL = Duration.ofMillis(200);
  public static final Duration SETTLE_AT_MOST = Duration.ofMinutes(2);
  static final int CURSOR_BATCH_SIZE = 1_000;

  private final MirrorSourceFactory source;
  private final MirrorDestination destination;
  private final CheckpointCatalog checkpoints;
  private final VerifyCatalog catalog;
  private final Duration settleAtMost;
  private final MirrorRedactions redactions;
  private final IdKeyRenderer keys = new IdKeyRenderer();
  private final TranscodingJsonRenderer renderer = TranscodingJsonRenderer.relaxed();

  /**
   * @param settleAtMost how long a range waits for the mirror to pass its reads before it calls them
   *     unsettled ({@link #SETTLE_AT_MOST} in production)
   */
  public VerifyActivityImpl(MirrorSourceFactory source, MirrorDestination destination, CheckpointCatalog checkpoints,
      VerifyCatalog catalog, Duration settleAtMost, MirrorRedactions redactions) {
    this.redactions = Objects.requireNonNull(redactions, "redactions");
    this.source = Objects.requireNonNull(source, "source");
    this.destination = Objects.requireNonNull(destination, "destination");
    this.checkpoints = Objects.requireNonNull(checkpoints, "checkpoints");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.settleAtMost = Objects.requireNonNull(settleAtMost, "settleAtMost");
  }

  @Override
  public VerifyPlan startVerify(VerifyRequest request, String workflowRunId) {
    VerifyCatalog.StoredRun run = catalog.run(workflowRunId).orElseGet(() -> plan(request, workflowRunId));
    return new VerifyPlan(run.runId(), run.rangesTotal(), run.pendingRanges(), run.skippedCollections());
  }

  private VerifyCatalog.StoredRun plan(VerifyRequest request, String workflowRunId) {
    MirrorConfig mirror = request.mirror();
    if (checkpoints.registered(mirror.name()).isEmpty()) {
      throw new InvalidMirrorConfigurationException("mirror " + mirror.name() + " is not in the catalog");
    }
    int perPartition = mirror.settings().snapshot().documentsPerPartition();
    List<VerifyCatalog.PlannedRange> ranges = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    try (SnapshotSource snapshot = source.snapshotSource(mirror)) {
      List<String> collections = mirror.collections().isEmpty() ? snapshot.collectionNames() : mirror.collections();
      for (String collection : collections) {
        if (mirror.settings().snapshot().filters().containsKey(collection)) {
          // The copy left out what the filter excludes: the two sides are meant to differ.
          skipped.add(collection);
          continue;
        }
        long estimated = snapshot.estimatedCount(collection);
        List<BsonValue> sample = snapshot.sampleIds(collection, PartitionPlanner.sampleSizeFor(estimated, perPartition));
        for (IdRange range : PartitionPlanner.plan(estimated, sample, perPartition)) {
          ranges.add(new VerifyCatalog.PlannedRange(collection, range.toJson()));
        }
      }
    }
    VerifyCatalog.StoredRun run = catalog.storeRun(mirror.name(), workflowRunId, request.repair(), ranges, skipped);
    log.info("mirror {}: verify run {} planned: {} ranges{}", mirror.name(), run.runId(), ranges.size(),
        skipped.isEmpty() ? "" : ", skipping " + String.join(", ", skipped) + " (snapshot filters)");
    return run;
  }

  @Override
  public VerifyRangeResult verifyRange(VerifyRangeRequest request) {
    MirrorConfig mirror = request.request().mirror();
    try {
      VerifyCatalog.VerifiedRange planned = catalog.range(request.runId(), request.range());
      if (planned.done()) {
        return result(planned.range(), planned.verdict());
      }
      catalog.rangeStarted(request.runId(), request.range());
      VerifyCatalog.Verdict verdict;
      try (PartitionHeartbeat heartbeat = PartitionHeartbeat.ofActivity(mirror.name(), "verify",
          new VerifyHeartbeat(planned.collection(), planned.range(), 0, 0))) {
        verdict = judge(request, planned, heartbeat);
      }
      catalog.rangeDone(request.runId(), request.range(), verdict);
      if (verdict.mismatches() > 0) {
        log.warn("mirror {}: verify range {} of {}: {} missing, {} extra, {} different, {} unsettled, {} repaired",
            mirror.name(), planned.range(), planned.collection(), verdict.missing(), verdict.extra(),
            verdict.different(), verdict.unsettled(), verdict.repaired());
      }
      return result(planned.range(), verdict);
    } catch (ActivityCompletionException e) {
      throw e;
    } catch (InterruptedException e) {
      throw ActivityInterruption.workerShuttingDown(ActivityNames.VERIFY_RANGE, "the range is judged again");
    } catch (Exception e) {
      ActivityInterruption.rethrowIfCompletion(e);
      ApplicationFailure failure = FailureClassifier.classify(ActivityNames.VERIFY_RANGE, e);
      log.warn("mirror {}: verify range {} failed: [{}] {}", mirror.name(), request.range(), failure.getType(),
          failure.getOriginalMessage());
      throw failure;
    }
  }

  private VerifyCatalog.Verdict judge(VerifyRangeRequest request, VerifyCatalog.VerifiedRange planned,
      PartitionHeartbeat heartbeat) throws Exception {
    MirrorConfig mirror = request.request().mirror();
    String collection = planned.collection();
    Namespace namespace = new Namespace(mirror.sourceDatabase(), collection);
    String table = destination.tableResolver(mirror).tableFor(namespace);
    IdRange range = IdRange.fromJson(planned.idRange());
    ReadPacer pacer = ReadPacer.systemClock(request.request().documentsPerSecondPerRange());
    DestinationRows rows = destination.rows(mirror);

    RangeDigest fromSource = new RangeDigest();
    try (SnapshotSource snapshot = source.snapshotSource(mirror);
        DocumentCursor cursor = RedactingCursor.of(snapshot.open(collection, range, new BsonDocument(),
            CURSOR_BATCH_SIZE), redactions.of(mirror).of(collection))) {
      for (RawBsonDocument document = cursor.next(); document != null; document = cursor.next()) {
        fromSource.add(keys.renderIdOf(document), document.get("_id"), canonicalJson(document), null);
        pacer.read(1);
        if (fromSource.count() % CURSOR_BATCH_SIZE == 0) {
          heartbeat.progress(new VerifyHeartbeat(collection, planned.range(), fromSource.count(), 0));
        }
      }
    }
    long sourceCount = fromSource.count();
    RangeDigest fromDestination = rows.read(mirror, table, range,
        read -> heartbeat.progress(new VerifyHeartbeat(collection, planned.range(), sourceCount, read)));
    if (fromSource.sameAs(fromDestination)) {
      return new VerifyCatalog.Verdict(fromSource.count(), fromSource.hash(), fromDestination.count(),
          fromDestination.hash(), 0, 0, 0, 0, 0, List.of());
    }

    Settled settled = settle(mirror, collection, table, Divergence.between(fromSource, fromDestination), pacer,
        heartbeat, rows);
    long repaired = request.request().repair() ? repair(mirror, namespace, table, settled.confirmed, pacer) : 0;
    long missing = settled.count(Divergence.Kind.MISSING);
    long extra = settled.count(Divergence.Kind.EXTRA);
    long different = settled.count(Divergence.Kind.DIFFERENT);
    List<String> sample = new ArrayList<>();
    settled.confirmed.stream().limit(SAMPLE_IDS).forEach(d -> sample.add(d.key()));
    settled.unsettled.stream().limit(Math.max(0, SAMPLE_IDS - sample.size())).forEach(d -> sample.add(d.key()));
    return new VerifyCatalog.Verdict(fromSource.count(), fromSource.hash(), fromDestination.count(),
        fromDestination.hash(), missing, extra, different, settled.unsettled.size(), repaired, sample);
  }

  /** The differences that hold once the mirror has passed the reads, and those that kept changing. */
  private record Settled(List<Divergence> confirmed, List<Divergence> unsettled) {
    long count(Divergence.Kind kind) {
      return confirmed.stream().filter(d -> d.kind() == kind).count();
    }
  }

  private Settled settle(MirrorConfig mirror, String collection, String table, List<Divergence> candidates,
      ReadPacer pacer, PartitionHeartbeat heartbeat, DestinationRows rows) throws Exception {
    List<Divergence> confirmed = new ArrayList<>();
    List<Divergence> open = candidates;
    for (int round = 0; round < SETTLE_ROUNDS && !open.isEmpty(); round++) {
      StreamPosition before = source.readPosition(mirror);
      Map<String, String> now = readAgain(mirror, collection, open, pacer);
      StreamPosition after = source.readPosition(mirror);
      if (!awaitPassed(mirror, after, heartbeat)) {
        break;
      }
      ResumeToken unchangedUpTo = ReadBound.of(before);
      Map<String, DestinationRows.Row> stored = rows.rows(mirror, table, open.stream().map(Divergence::key).toList());
      List<Divergence> changing = new ArrayList<>();
      for (Divergence candidate : open) {
        DestinationRows.Row row = stored.get(candidate.key());
        if (row != null && row.position() != null && row.position().compareTo(unchangedUpTo.data()) > 0) {
          // Written by a change after the read began: the read says nothing about it. Again.
          changing.add(candidate);
          continue;
        }
        String sourceJson = now.get(candidate.key());
        String storedJson = row == null ? null : row.document();
        if (sourceJson == null && storedJson == null) {
          continue;
        }
        if (sourceJson != null && storedJson != null
            && DocumentFingerprint.of(candidate.key(), sourceJson) == DocumentFingerprint.of(candidate.key(), storedJson)) {
          continue;
        }
        Divergence.Kind kind = sourceJson == null ? Divergence.Kind.EXTRA
            : storedJson == null ? Divergence.Kind.MISSING : Divergence.Kind.DIFFERENT;
        confirmed.add(new Divergence(candidate.key(), candidate.id(), kind));
      }
      open = changing;
    }
    return new Settled(confirmed, open);
  }

  /** The candidates' documents as the source has them now (rendered as the destination stores them), by key. */
  private Map<String, String> readAgain(MirrorConfig mirror, String collection, List<Divergence> candidates,
      ReadPacer pacer) throws InterruptedException {
    List<BsonValue> ids = candidates.stream().map(Divergence::id).filter(Objects::nonNull).toList();
    Map<String, String> found = new HashMap<>();
    MirrorRedaction redaction = redactions.of(mirror);
    try (SnapshotSource snapshot = source.snapshotSource(mirror)) {
      for (RawBsonDocument document : snapshot.findByIds(collection, ids)) {
        found.put(keys.renderIdOf(document), canonicalJson(redaction.document(collection, document)));
      }
    }
    pacer.read(ids.size());
    return found;
  }

  /** Waits until the mirror's committed checkpoint covers {@code position}; false if it did not in time. */
  private boolean awaitPassed(MirrorConfig mirror, StreamPosition position, PartitionHeartbeat heartbeat)
      throws InterruptedException {
    long deadline = System.nanoTime() + settleAtMost.toNanos();
    while (!ReadBound.passed(checkpoints.committed(mirror.name()).orElse(null), position)) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      heartbeat.throwIfFailed();
      Thread.sleep(CHECKPOINT_POLL.toMillis());
    }
    return true;
  }

  /**
   * Re-copies the confirmed documents as the source has them now, and deletes the rows it does
   * not have, in one transaction, at a position just after the read.
   */
  private long repair(MirrorConfig mirror, Namespace namespace, String table, List<Divergence> confirmed,
      ReadPacer pacer) throws Exception {
    if (confirmed.isEmpty()) {
      return 0;
    }
    // A repair writes rows after the mirror's checkpoint, which no field rule rewrite reaches: it
    // must write them under the rules the mirror has now, not those this verify started with.
    MirrorConfig current = checkpoints.registered(mirror.name()).orElse(mirror);
    if (!current.settings().fieldRules().equals(mirror.settings().fieldRules())) {
      throw new InvalidMirrorConfigurationException("mirror " + mirror.name() + ": its field rules changed since"
          + " this verify started, so its repairs would write rows under the old rules; run mirror verify again");
    }
    StreamPosition readAt = source.readPosition(mirror);
    ResumeToken position = ReadBound.repairPosition(readAt);
    var commitTime = SnapshotPosition.commitTimeOf(readAt);
    Map<String, RawBsonDocument> now = new LinkedHashMap<>();
    MirrorRedaction redaction = redactions.of(mirror);
    try (SnapshotSource snapshot = source.snapshotSource(mirror)) {
      for (RawBsonDocument document : snapshot.findByIds(namespace.collection(),
          confirmed.stream().map(Divergence::id).filter(Objects::nonNull).toList())) {
        now.put(keys.renderIdOf(document), redaction.document(namespace.collection(), document));
      }
    }
    pacer.read(confirmed.size());
    // The typed columns are written from the re-read document too, as a copy writes them.
    DocumentProjector projector = MirrorColumns.of(mirror, renderer).of(namespace);
    List<ChangeRecord> records = new ArrayList<>(confirmed.size());
    for (Divergence divergence : confirmed) {
      RawBsonDocument document = now.get(divergence.key());
      records.add(document == null
          ? ChangeRecord.builder().operation(Operation.DELETE).source(namespace).table(table).key(divergence.key())
              .position(position).commitTime(commitTime).build()
          : ChangeRecord.builder().operation(Operation.INSERT).source(namespace).table(table).key(divergence.key())
              .document(renderer.render(document)).position(position).commitTime(commitTime)
              .sourceBytes(document.getByteBuffer().remaining())
              .typed(projector == null ? null : projector.project(document)).build());
    }
    try (RecordSink sink = destination.openSink(mirror, 0)) {
      try {
        sink.write(records);
        sink.commit();
      } catch (Exception | Error e) {
        sink.abort(e);
        throw e;
      }
    }
    return records.size();
  }

  /** The document as the destination would store it: rendered like a copy, then made storable as jsonb. */
  private String canonicalJson(RawBsonDocument document) {
    return JsonbSanitizer.sanitize(renderer.render(document));
  }

  @Override
  public VerifyResult finishVerify(VerifyRequest request, long runId) {
    VerifyCatalog.FinishedRun run = catalog.finish(runId);
    Map<String, long[]> byCollection = new LinkedHashMap<>();
    Map<String, Integer> rangeCounts = new LinkedHashMap<>();
    for (VerifyCatalog.VerifiedRange range : catalog.ranges(runId)) {
      long[] sums = byCollection.computeIfAbsent(range.collection(), c -> new long[7]);
      rangeCounts.merge(range.collection(), 1, Integer::sum);
      VerifyCatalog.Verdict v = range.verdict();
      if (v != null) {
        sums[0] += v.sourceDocuments();
        sums[1] += v.destinationDocuments();
        sums[2] += v.missing();
        sums[3] += v.extra();
        sums[4] += v.different();
        sums[5] += v.unsettled();
        sums[6] += v.repaired();
      }
    }
    List<VerifyResult.Collection> collections = new ArrayList<>();
    byCollection.forEach((collection, s) -> collections.add(new VerifyResult.Collection(collection,
        rangeCounts.get(collection), s[0], s[1], s[2], s[3], s[4], s[5], s[6])));
    return new VerifyResult(runId, request.repair(), collections, run.skippedCollections(), run.seconds());
  }

  private static VerifyRangeResult result(int range, VerifyCatalog.Verdict verdict) {
    return new VerifyRangeResult(range, verdict.sourceDocuments(), verdict.differing(), verdict.repaired(),
        verdict.unsettled());
  }

  /** What a running range heartbeats: shown as the activity's progress in the Temporal UI. */
  public record VerifyHeartbeat(String collection, int range, long sourceDocuments, long destinationRows) {}
}
