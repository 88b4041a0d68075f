package io.mongocdc.catalog;

import static io.mongocdc.catalog.jooq.Tables.CHECKPOINTS;
import static org.jooq.impl.DSL.excluded;

import io.mongocdc.ports.CheckpointCommit.Outcome;
import io.mongocdc.ports.CheckpointCommit;
import io.mongocdc.catalog.jooq.tables.records.CheckpointsRecord;
import io.mongocdc.source.ResumeToken;
import io.mongocdc.source.StreamPosition;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.Optional;
import org.bson.BsonTimestamp;
import org.jooq.Condition;
import org.jooq.DSLContext;

/**
 * The committed checkpoint of each mirror.
 *
 * <p>{@link #commit} is monotonic and idempotent, in one SQL statement ({@code INSERT ... ON
 * CONFLICT DO UPDATE ... WHERE}), so it holds under concurrent commits without locks taken by
 * this code: a commit replaces the stored checkpoint only if its batch id is greater (or equal
 * with a later resume token), and never with a resume token that is earlier than the stored
 * one. Committing batch 7 twice, or batch 6 after 7, leaves batch 7; of two racing commits the
 * newer one stays, whichever runs last.
 */
public final class CheckpointStore {

  private final DSLContext dsl;

  public CheckpointStore(DSLContext dsl) {
    this.dsl = Objects.requireNonNull(dsl, "dsl");
  }

  /** The committed checkpoint of a mirror, if it has one. */
  public Optional<StoredCheckpoint> load(String mirror) {
    return dsl.selectFrom(CHECKPOINTS)
        .where(CHECKPOINTS.MIRROR_NAME.eq(mirror))
        .fetchOptional()
        .map(CheckpointStore::toCheckpoint);
  }

  /**
   * Commits the checkpoint of a batch, monotonically (see the class comment).
   *
   * @param batchId the batch that delivered everything up to {@code position}; at least 0
   */
  public CheckpointCommit commit(String mirror, long batchId, StreamPosition position) {
    Objects.requireNonNull(mirror, "mirror");
    Objects.requireNonNull(position, "position");
    if (batchId < 0) {
      throw new IllegalArgumentException("batchId must be at least 0, got " + batchId);
    }
    ResumeToken token = position.tokenOrNull();
    BsonTimestamp clusterTime = position.clusterTimeOrZero();
    OffsetDateTime clusterTimeAt =
        OffsetDateTime.ofInstant(Instant.ofEpochSecond(clusterTime.getTime()), ZoneOffset.UTC);

    Condition newerBatch =
        CHECKPOINTS
            .BATCH_ID
            .lt(excluded(CHECKPOINTS.BATCH_ID))
            .or(
                CHECKPOINTS
                    .BATCH_ID
                    .eq(excluded(CHECKPOINTS.BATCH_ID))
                    .and(CHECKPOINTS.RESUME_TOKEN.lt(excluded(CHECKPOINTS.RESUME_TOKEN))));
    // Never backwards in the stream: resume_token is collated "C", so text order is byte order
    // of the upper-case hex, which is stream order.
    Condition notBehind =
        CHECKPOINTS
            .RESUME_TOKEN
            .isNull()
            .or(excluded(CHECKPOINTS.RESUME_TOKEN).ge(CHECKPOINTS.RESUME_TOKEN));

    Optional<CheckpointsRecord> applied =
        dsl.insertInto(CHECKPOINTS)
            .set(CHECKPOINTS.MIRROR_NAME, mirror)
            .set(CHECKPOINTS.BATCH_ID, batchId)
            .set(CHECKPOINTS.RESUME_TOKEN, token == null ? null : token.data())
            .set(CHECKPOINTS.CLUSTER_TIME, clusterTime.getValue())
            .set(CHECKPOINTS.CLUSTER_TIME_AT, clusterTimeAt)
            .set(CHECKPOINTS.COMMITTED_AT, org.jooq.impl.DSL.currentOffsetDateTime())
            .onConflict(CHECKPOINTS.MIRROR_NAME)
            .doUpdate()
            .set(CHECKPOINTS.BATCH_ID, excluded(CHECKPOINTS.BATCH_ID))
            .set(CHECKPOINTS.RESUME_TOKEN, excluded(CHECKPOINTS.RESUME_TOKEN))
            .set(CHECKPOINTS.CLUSTER_TIME, excluded(CHECKPOINTS.CLUSTER_TIME))
            .set(CHECKPOINTS.CLUSTER_TIME_AT, excluded(CHECKPOINTS.CLUSTER_TIME_AT))
            .set(CHECKPOINTS.COMMITTED_AT, excluded(CHECKPOINTS.COMMITTED_AT))
            .where(newerBatch.and(notBehind))
            .returning()
            .fetchOptional();
    if (applied.isPresent()) {
      return commitOf(Outcome.APPLIED, toCheckpoint(applied.get()));
    }
    StoredCheckpoint current =
        load(mirror)
            .orElseThrow(
                () -> new IllegalStateException("checkpoint of mirror " + mirror + " vanished"));
    Outcome outcome = current.batchId() < batchId ? Outcome.POSITION_BEHIND : Outcome.NOT_NEWER;
    return commitOf(outcome, current);
  }

  private static CheckpointCommit commitOf(Outcome outcome, StoredCheckpoint stored) {
    return new CheckpointCommit(outcome, stored.batchId(), stored.position());
  }

  private static StoredCheckpoint toCheckpoint(CheckpointsRecord r) {
    StreamPosition position =
        r.getResumeToken() != null
            ? StreamPosition.after(ResumeToken.of(r.getResumeToken()))
            : StreamPosition.atOperationTime(new BsonTimestamp(r.getClusterTime()));
    return new StoredCheckpoint(
        r.getMirrorName(), r.getBatchId(), position, r.getCommittedAt().toInstant());
  }
}
