package io.mongocdc.ports;

import io.mongocdc.pipeline.PoisonEvent;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.FieldRulesWritten;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorStateChange;
import io.mongocdc.workflows.model.OplogSpan;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The catalog's record of mirrors, their committed checkpoints and their batch history. */
public interface CheckpointCatalog {

  /**
   * Registers the mirror (peer names and settings, never credentials); idempotent.
   *
   * @return the checkpoint already committed for it, if it existed before
   */
  Optional<StreamPosition> register(MirrorConfig mirror);

  /**
   * Records a batch and moves the mirror's checkpoint to {@code position}, monotonically: a
   * commit for an older batch, or of an older position, records the batch row but never moves
   * the stored checkpoint back. Committing the same batch again is a no-op.
   */
  CheckpointCommit commit(String mirror, long batchId, StreamPosition position, BatchFigures figures);

  Optional<StreamPosition> committed(String mirror);

  /** The mirror's configuration as the catalog last recorded it, if the mirror is registered. */
  Optional<MirrorConfig> registered(String mirror);

  /** The batch that committed the mirror's checkpoint; 0 if it has none. */
  long committedBatchId(String mirror);

  /**
   * Writes the workflow's phase (and the configuration in effect) to the mirror's row, if the
   * change is newer than the one recorded; an older or repeated change, or a mirror not
   * registered yet, changes nothing.
   *
   * @return true if the row now shows this change
   */
  boolean recordState(MirrorStateChange change);

  /**
   * How far the destination's visible rows reach (the source commit time of the newest visible
   * change), as a running batch reports it every few seconds; moves forward only.
   */
  void recordVisibleThrough(String mirror, Instant visibleThrough);

  /**
   * When the mirror's running batch began to wait for its destination connections, or null when it
   * waits no more ({@link ConnectionWaitLog}). By default not recorded.
   */
  default void recordWaitingSince(String mirror, Instant since) {}

  /**
   * The source's oplog span as a batch saw it when it ended, so the catalog can tell how much
   * history the committed checkpoint has left while no batch runs. By default not recorded.
   */
  default void recordOplogSpan(String mirror, OplogSpan span, Instant observedAt) {}

  /**
   * Every mirror's health as the catalog records it, for alerting ({@code MirrorHealthMetrics});
   * by default none.
   */
  default List<MirrorHealth> mirrorHealth() {
    return List.of();
  }

  /**
   * Keeps the start of a PullRecords attempt (see {@link FailedAttemptLog#started}); by default
   * not recorded.
   */
  default void recordAttemptStarted(String mirror, long batchId, int attempt) {}

  /** Completes the record of an attempt that ended without failing; by default not recorded. */
  default void recordAttemptEnded(String mirror, long batchId, int attempt) {}

  /** Keeps a failed PullRecords attempt (see {@link FailedAttemptLog}). */
  void recordFailedAttempt(String mirror, long batchId, int attempt, String failureType, String message);

  /** Keeps a poison event a batch sets aside (see {@link QuarantineLog}). */
  void setAside(String mirror, long batchId, PoisonEvent event);

  /** The mirror's quarantined events not applied yet, in stream order. */
  List<QuarantinedEvent> quarantined(String mirror);

  /** Marks quarantined events applied (by {@code mirror replay-quarantine}). */
  void markReplayed(List<Long> ids);

  /** Counts a replay of a quarantined event that was refused again, and why. */
  void refusedAgain(long id, String reason);

  /**
   * Records the fingerprint of the field hash key the mirror hashes with, unless it has one
   * already. @return the fingerprint it holds now: another one means another key
   */
  String recordFieldHashKeyFingerprint(String mirror, String fingerprint);

  /**
   * Rewrites the kept BSON and document of every event the mirror quarantined, replayed or not, at
   * a position after {@code after} and not after {@code upTo} (null: no bound), as {@code rewrite}
   * says, once per {@code rewriteId}: a second call with the same id (a retry after a crash)
   * changes nothing. @return the events it changed
   */
  int rewriteQuarantined(String mirror, String rewriteId, io.mongocdc.source.ResumeToken after,
      io.mongocdc.source.ResumeToken upTo, java.util.function.UnaryOperator<PoisonEvent> rewrite);

  /** Where the rewrite of rows before an added field rule is (null: none running), and the rows it rewrote. */
  void recordFieldRuleRewrite(String mirror, String state, long rows);

  /**
   * What the rows the mirror wrote hold under its field rules, as its workflow last recorded it
   * with its state ({@link MirrorStateChange#fieldRulesWritten}) and its rewrites moved it on;
   * empty if never recorded.
   */
  Optional<FieldRulesWritten> fieldRulesWritten(String mirror);

  /**
   * Moves the rewrite {@code rewrite} is a slice of (same {@link FieldRuleRewrite#id}) to its new
   * place in the mirror's {@link #fieldRulesWritten}, or drops it once done: a mirror created again
   * then never runs a finished rewrite again, which would hash twice. Nothing if none is recorded.
   */
  void recordFieldRuleRewriteProgress(String mirror, FieldRuleRewrite rewrite);

  /** Deletes the mirror's rows (on an operator's explicit request only). */
  void forget(String mirror);
}
