package io.mongocdc.activities;

import io.mongocdc.decode.TranscodingJsonRenderer;
import io.mongocdc.pipeline.PoisonEvent;
import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.privacy.MirrorRedaction;
import io.mongocdc.snapshot.SnapshotPosition;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.workflows.FieldRuleActivity;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.MirrorConfig;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import org.bson.RawBsonDocument;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rewrites what a mirror wrote before field rules were added: first its quarantined events (their
 * kept BSON and documents, replayed or not), then its tables, a slice per call, recording where it
 * is in the catalog ({@code mirrors.field_rule_rewrite}).
 */
public final class FieldRuleActivityImpl implements FieldRuleActivity {

  private static final Logger log = LoggerFactory.getLogger(FieldRuleActivityImpl.class);

  private final MirrorDestination destination;
  private final CheckpointCatalog catalog;
  private final MirrorRedactions redactions;

  public FieldRuleActivityImpl(MirrorDestination destination, CheckpointCatalog catalog, MirrorRedactions redactions) {
    this.destination = Objects.requireNonNull(destination, "destination");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.redactions = Objects.requireNonNull(redactions, "redactions");
  }

  @Override
  public FieldRuleRewrite rewriteFieldRules(MirrorConfig mirror, FieldRuleRewrite rewrite) {
    MirrorRedaction added = redactions.of(mirror, rewrite.rules(), rewrite.hashedAlready());
    FieldRuleRewrite at = rewrite;
    ResumeToken after = tokenOf(rewrite.after());
    ResumeToken upTo = tokenOf(rewrite.upTo());
    if (at.stage() == null) {
      int events = catalog.rewriteQuarantined(mirror.name(), at.id(), after, upTo, event -> rewritten(event, added));
      List<String> collections = List.copyOf(at.rules().collections().keySet());
      at = at.at(collections.isEmpty() ? null : collections.get(0), FieldRuleRewrite.TABLE, null, null,
          at.rowsRewritten() + events);
    }
    FieldRuleRewrite next;
    try (PartitionHeartbeat heartbeat = PartitionHeartbeat.ofActivity(mirror.name(), "field-rules", 0L)) {
      long[] transactions = {0};
      next = at.collection() == null ? at.finished(at.rowsRewritten())
          : destination.rewriteFieldRules(mirror, at, after, upTo, added, () -> heartbeat.progress(++transactions[0]));
    }
    // The rows past the checkpoint come first; the rewrite up to it always follows, so it is not done yet.
    String state = !next.done() ? next.describe()
        : next.upTo() == null ? next.describe() + "; the rows up to it follow" : null;
    catalog.recordFieldRuleRewrite(mirror.name(), state, next.rowsRewritten());
    // Before the workflow hears of it: a mirror dropped now and created again never runs it again.
    catalog.recordFieldRuleRewriteProgress(mirror.name(), next);
    log.info("mirror {}: field rule rewrite: {}", mirror.name(), next.describe());
    return next;
  }

  /** The position a rewrite's bound stands for; null for no bound. */
  private static ResumeToken tokenOf(Checkpoint bound) {
    return bound == null ? null : SnapshotPosition.tokenOf(Checkpoints.toPosition(bound));
  }

  /** A quarantined event with the added rules applied to what it kept. */
  private static PoisonEvent rewritten(PoisonEvent event, MirrorRedaction added) {
    byte[] raw = event.rawEvent();
    if (raw != null) {
      RawBsonDocument redacted;
      try {
        redacted = added.changeEvent(new RawBsonDocument(raw));
      } catch (IllegalArgumentException e) {
        redacted = RawBsonDocument.parse("{}");
      }
      ByteBuffer bytes = redacted.getByteBuffer().asNIO();
      raw = new byte[bytes.remaining()];
      bytes.get(raw);
    }
    String document = event.document();
    if (document != null && event.source() != null && added.of(event.source().collection()) != null) {
      RawBsonDocument parsed;
      try {
        parsed = added.document(event.source().collection(), RawBsonDocument.parse(document));
      } catch (RuntimeException e) {
        parsed = RawBsonDocument.parse("{}");
      }
      document = TranscodingJsonRenderer.relaxed().render(parsed);
    }
    return new PoisonEvent(event.position(), event.source(), event.table(), event.key(), event.operation(), document,
        event.commitTime(), raw, event.reason());
  }
}
