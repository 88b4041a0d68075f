package io.mongocdc.catalog;

import static io.mongocdc.catalog.jooq.Tables.MIRRORS;
import static io.mongocdc.catalog.jooq.Tables.QUARANTINED_EVENTS;

import io.mongocdc.ports.QuarantinedEvent;
import io.mongocdc.catalog.jooq.tables.records.QuarantinedEventsRecord;
import io.mongocdc.decode.Namespace;
import io.mongocdc.decode.Operation;
import io.mongocdc.pipeline.PoisonEvent;
import io.mongocdc.source.ResumeToken;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.Objects;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The catalog's {@code quarantined_events}: poison events a mirror set aside, one row per
 * (mirror, position), until {@code mirror replay-quarantine} applies them.
 */
public final class QuarantineStore {

  private final DSLContext dsl;

  QuarantineStore(DSLContext dsl) {
    this.dsl = Objects.requireNonNull(dsl, "dsl");
  }

  /**
   * Keeps the event. A batch replayed after a failure meets it again and only refreshes the
   * reason and batch; an event replayed by an operator and then met again is pending again.
   */
  public void add(String mirror, long batchId, PoisonEvent event) {
    dsl.insertInto(QUARANTINED_EVENTS)
        .set(QUARANTINED_EVENTS.MIRROR_NAME, mirror)
        .set(QUARANTINED_EVENTS.POSITION, event.position().data())
        .set(QUARANTINED_EVENTS.POSITION_KEY, positionKey(event.position().data(), event.key()))
        .set(QUARANTINED_EVENTS.BATCH_ID, batchId)
        .set(QUARANTINED_EVENTS.SOURCE_NAMESPACE, event.source() == null ? null : text(event.source().fullName()))
        .set(QUARANTINED_EVENTS.TABLE_NAME, text(event.table()))
        .set(QUARANTINED_EVENTS.DOCUMENT_KEY, text(event.key()))
        .set(QUARANTINED_EVENTS.OPERATION, event.operation() == null ? null : event.operation().operationType())
        .set(QUARANTINED_EVENTS.DOCUMENT, text(event.document()))
        .set(QUARANTINED_EVENTS.RAW_EVENT, event.rawEvent())
        .set(QUARANTINED_EVENTS.COMMIT_TIME, event.commitTime() == null ? null
            : OffsetDateTime.ofInstant(event.commitTime(), ZoneOffset.UTC))
        .set(QUARANTINED_EVENTS.REASON, text(event.reason()))
        .onConflict(QUARANTINED_EVENTS.MIRROR_NAME, QUARANTINED_EVENTS.POSITION_KEY)
        .doUpdate()
        .set(QUARANTINED_EVENTS.BATCH_ID, batchId)
        .set(QUARANTINED_EVENTS.REASON, text(event.reason()))
        .set(QUARANTINED_EVENTS.REPLAYED_AT, (OffsetDateTime) null)
        .execute();
  }

  /** The mirror's events not applied yet, in stream order. */
  public List<QuarantinedEvent> pending(String mirror) {
    return dsl.selectFrom(QUARANTINED_EVENTS)
        .where(QUARANTINED_EVENTS.MIRROR_NAME.eq(mirror))
        .and(QUARANTINED_EVENTS.REPLAYED_AT.isNull())
        .orderBy(QUARANTINED_EVENTS.POSITION)
        .fetch(QuarantineStore::event);
  }

  /**
   * Rewrites every event the mirror quarantined, replayed or not, at a position after {@code after}
   * and not after {@code upTo} (null: no bound), as {@code rewrite} says (its kept BSON and
   * document only), in one transaction, once per {@code rewriteId}: the transaction
   * records the id, and a call with the id recorded rewrites nothing (a retry after a crash).
   *
   * @return the events whose kept parts changed
   */
  public int rewrite(String mirror, String rewriteId, String after, String upTo, UnaryOperator<PoisonEvent> rewrite) {
    Condition inRange = (after == null ? DSL.noCondition() : QUARANTINED_EVENTS.POSITION.gt(after))
        .and(upTo == null ? DSL.noCondition() : QUARANTINED_EVENTS.POSITION.le(upTo));
    int[] changed = {0};
    dsl.transaction(configuration -> {
      DSLContext tx = configuration.dsl();
      String done = tx.select(MIRRORS.FIELD_RULE_REWRITE_QUARANTINED).from(MIRRORS).where(MIRRORS.NAME.eq(mirror))
          .forUpdate().fetchOptional(MIRRORS.FIELD_RULE_REWRITE_QUARANTINED).orElse(null);
      if (rewriteId.equals(done)) {
        return;
      }
      tx.update(MIRRORS).set(MIRRORS.FIELD_RULE_REWRITE_QUARANTINED, rewriteId).where(MIRRORS.NAME.eq(mirror)).execute();
      for (QuarantinedEventsRecord row : tx.selectFrom(QUARANTINED_EVENTS)
          .where(QUARANTINED_EVENTS.MIRROR_NAME.eq(mirror)).and(inRange).orderBy(QUARANTINED_EVENTS.ID).forUpdate()
          .fetch()) {
        PoisonEvent kept = event(row).event();
        PoisonEvent rewritten = rewrite.apply(kept);
        if (!java.util.Arrays.equals(kept.rawEvent(), rewritten.rawEvent())
            || !java.util.Objects.equals(kept.document(), rewritten.document())) {
          tx.update(QUARANTINED_EVENTS)
              .set(QUARANTINED_EVENTS.RAW_EVENT, rewritten.rawEvent())
              .set(QUARANTINED_EVENTS.DOCUMENT, text(rewritten.document()))
              .where(QUARANTINED_EVENTS.ID.eq(row.getId()))
              .execute();
          changed[0]++;
        }
      }
    });
    return changed[0];
  }

  /** How many of the mirror's events are not applied yet. */
  public int pendingCount(String mirror) {
    return dsl.fetchCount(QUARANTINED_EVENTS,
        QUARANTINED_EVENTS.MIRROR_NAME.eq(mirror).and(QUARANTINED_EVENTS.REPLAYED_AT.isNull()));
  }

  /** Marks the events applied. */
  public void replayed(List<Long> ids) {
    if (ids.isEmpty()) {
      return;
    }
    dsl.update(QUARANTINED_EVENTS)
        .set(QUARANTINED_EVENTS.REPLAYED_AT, DSL.currentOffsetDateTime())
        .where(QUARANTINED_EVENTS.ID.in(ids))
        .execute();
  }

  /** Counts a replay that was refused again, with the reason it was refused this time. */
  public void refusedAgain(long id, String reason) {
    dsl.update(QUARANTINED_EVENTS)
        .set(QUARANTINED_EVENTS.REPLAY_ATTEMPTS, QUARANTINED_EVENTS.REPLAY_ATTEMPTS.plus(1))
        .set(QUARANTINED_EVENTS.REASON, text(reason))
        .where(QUARANTINED_EVENTS.ID.eq(id))
        .execute();
  }

  private static QuarantinedEvent event(QuarantinedEventsRecord row) {
    String ns = row.getSourceNamespace();
    Namespace source = null;
    if (ns != null) {
      int dot = ns.indexOf('.');
      source = dot < 0 ? new Namespace(ns, null) : new Namespace(ns.substring(0, dot), ns.substring(dot + 1));
    }
    Instant commitTime = row.getCommitTime() == null ? null : row.getCommitTime().toInstant();
    PoisonEvent event = new PoisonEvent(ResumeToken.of(row.getPosition()), source, row.getTableName(),
        row.getDocumentKey(), row.getOperation() == null ? null : Operation.fromOperationType(row.getOperation()),
        row.getDocument(), commitTime, row.getRawEvent(), row.getReason());
    return new QuarantinedEvent(row.getId(), event, row.getReplayAttempts());
  }

  /**
   * What the unique key holds for an event: a SHA-256 of its position and document key. The key is
   * part of it because a snapshot copies every document of a partition at one position; a hash,
   * because a resume token holds the event's {@code _id} and a long one does not fit an index.
   */
  static String positionKey(String position, String key) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(position.getBytes(StandardCharsets.UTF_8));
      if (key != null) {
        sha.update((byte) 0);
        sha.update(key.getBytes(StandardCharsets.UTF_8));
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /** PostgreSQL text cannot hold NUL; a key or document may (JSON escapes it, key text need not). */
  private static String text(String value) {
    return value == null || value.indexOf('\0') < 0 ? value : value.replace("\0", "\\u0000");
  }
}
