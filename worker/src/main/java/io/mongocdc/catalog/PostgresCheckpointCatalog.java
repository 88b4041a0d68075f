package io.mongocdc.catalog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.ports.CheckpointCommit;
import io.mongocdc.ports.MirrorHealth;
import io.mongocdc.ports.QuarantinedEvent;
import io.mongocdc.pipeline.PoisonEvent;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.FieldRulesWritten;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorPhase;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.OplogSpan;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The activities' catalog port on the PostgreSQL catalog: mirrors and peers (names and
 * settings only) with the state their workflows record, the monotonic checkpoint, one
 * batch-history row per batch with its per-table counts, and failed attempts.
 */
public final class PostgresCheckpointCatalog implements CheckpointCatalog {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CONTROL_EVENT = "CONTROL_EVENT";

  private final Catalog catalog;

  public PostgresCheckpointCatalog(Catalog catalog) {
    this.catalog = catalog;
  }

  @Override
  public Optional<StreamPosition> register(MirrorConfig mirror) {
    catalog.upsertPeer(mirror.sourcePeer(), Catalog.PeerKind.MONGODB, "{}");
    catalog.upsertPeer(mirror.destinationPeer(), Catalog.PeerKind.POSTGRES, "{}");
    if (catalog.mirror(mirror.name()).isEmpty()) {
      catalog.createMirror(mirror.name(), mirror.sourcePeer(), mirror.destinationPeer(), configJson(mirror));
    }
    // The state is the workflow's to record (recordState); a mirror registered again keeps it.
    return committed(mirror.name());
  }

  @Override
  public CheckpointCommit commit(String mirror, long batchId, StreamPosition position, BatchFigures figures) {
    Instant ended = Instant.now();
    Duration took = Duration.ofMillis(figures.get(BatchFigures.DURATION_MILLIS));
    catalog.batches().record(new BatchReport(mirror, batchId, ended.minus(took), ended, position.tokenOrNull(), null,
        figures));
    CheckpointCommit result = catalog.checkpoints().commit(mirror, batchId, position);
    // Only for a mirror whose workflow run does not record its states (it started on an older worker).
    if (CONTROL_EVENT.equals(figures.get(BatchFigures.END_REASON))) {
      catalog.setUntrackedMirrorStatus(mirror, MirrorPhase.PAUSED, "batch " + batchId + " stopped just"
          + " before a drop, rename, dropDatabase or invalidate event (control event policy PAUSE)");
    } else {
      catalog.setUntrackedMirrorStatus(mirror, MirrorPhase.RUNNING, null);
    }
    return result;
  }

  @Override
  public Optional<StreamPosition> committed(String mirror) {
    return catalog.checkpoints().load(mirror).map(StoredCheckpoint::position);
  }

  @Override
  public Optional<MirrorConfig> registered(String mirror) {
    return catalog.mirror(mirror).map(row -> {
      try {
        return JSON.readValue(row.getConfig().data(), MirrorConfig.class);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("the catalog's configuration of mirror " + mirror + " cannot be read: "
            + e.getOriginalMessage(), e);
      }
    });
  }

  @Override
  public long committedBatchId(String mirror) {
    return catalog.checkpoints().load(mirror).map(StoredCheckpoint::batchId).orElse(0L);
  }

  @Override
  public boolean recordState(MirrorStateChange change) {
    boolean failing = change.lastError() != null;
    return catalog.recordMirrorState(change.mirror(), change.phase(),
        change.reason(), change.lastError(), failing ? change.failureType() : null,
        failing ? change.failedAttempts() : null, Instant.ofEpochMilli(change.atMillis()), change.sequence(),
        configJson(change.config()), change.startedFrom(),
        change.fieldRulesWritten() == null ? null : json(change.fieldRulesWritten()));
  }

  @Override
  public void recordVisibleThrough(String mirror, Instant visibleThrough) {
    catalog.recordVisibleThrough(mirror, visibleThrough);
  }

  @Override
  public void recordWaitingSince(String mirror, Instant since) {
    catalog.recordWaitingSince(mirror, since);
  }

  @Override
  public void recordOplogSpan(String mirror, OplogSpan span, Instant observedAt) {
    catalog.recordOplogSpan(mirror, span.oldestSeconds(), span.newestSeconds(), observedAt);
  }

  @Override
  public List<MirrorHealth> mirrorHealth() {
    return new MirrorHealthQuery(catalog.dsl()).all();
  }

  @Override
  public void recordAttemptStarted(String mirror, long batchId, int attempt) {
    catalog.batches().recordAttemptStarted(mirror, batchId, attempt);
  }

  @Override
  public void recordAttemptEnded(String mirror, long batchId, int attempt) {
    catalog.batches().recordAttemptEnded(mirror, batchId, attempt);
  }

  @Override
  public void recordFailedAttempt(String mirror, long batchId, int attempt, String failureType, String message) {
    catalog.batches().recordFailedAttempt(mirror, batchId, attempt, failureType, message);
  }

  @Override
  public void setAside(String mirror, long batchId, PoisonEvent event) {
    catalog.quarantine().add(mirror, batchId, event);
  }

  @Override
  public List<QuarantinedEvent> quarantined(String mirror) {
    return catalog.quarantine().pending(mirror);
  }

  @Override
  public void markReplayed(List<Long> ids) {
    catalog.quarantine().replayed(ids);
  }

  @Override
  public void refusedAgain(long id, String reason) {
    catalog.quarantine().refusedAgain(id, reason);
  }

  @Override
  public String recordFieldHashKeyFingerprint(String mirror, String fingerprint) {
    return catalog.recordFieldHashKeyFingerprint(mirror, fingerprint);
  }

  @Override
  public int rewriteQuarantined(String mirror, String rewriteId, ResumeToken after, ResumeToken upTo,
      java.util.function.UnaryOperator<PoisonEvent> rewrite) {
    return catalog.quarantine().rewrite(mirror, rewriteId, after == null ? null : after.data(),
        upTo == null ? null : upTo.data(), rewrite);
  }

  @Override
  public void recordFieldRuleRewrite(String mirror, String state, long rows) {
    catalog.recordFieldRuleRewrite(mirror, state, rows);
  }

  @Override
  public Optional<FieldRulesWritten> fieldRulesWritten(String mirror) {
    return catalog.fieldRulesWritten(mirror).map(PostgresCheckpointCatalog::readFieldRulesWritten);
  }

  @Override
  public void recordFieldRuleRewriteProgress(String mirror, FieldRuleRewrite rewrite) {
    catalog.changeFieldRulesWritten(mirror, recorded -> json(readFieldRulesWritten(recorded).withProgress(rewrite)));
  }

  private static FieldRulesWritten readFieldRulesWritten(String recorded) {
    try {
      return JSON.readValue(recorded, FieldRulesWritten.class);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the catalog's record of the field rules the mirror's rows hold cannot be read: "
          + e.getOriginalMessage(), e);
    }
  }

  @Override
  public void forget(String mirror) {
    catalog.forgetMirror(mirror);
  }

  private static String configJson(MirrorConfig mirror) {
    return json(mirror);
  }

  private static String json(Object value) {
    try {
      return JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the mirror's " + value.getClass().getSimpleName() + " as JSON", e);
    }
  }
}
