package io.mongocdc.activities;

import io.mongocdc.workflows.model.FieldRuleRewrite;
import io.mongocdc.workflows.model.FieldRulesWritten;
import io.mongocdc.ports.CheckpointCatalog;
import io.mongocdc.ports.CheckpointCommit;
import io.mongocdc.ports.QuarantinedEvent;
import io.mongocdc.source.StreamPosition;
import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.MirrorConfig;
import io.mongocdc.workflows.model.MirrorStateChange;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/** A catalog in memory with the contract of the real one: monotonic, idempotent commits. */
public final class InMemoryCatalog implements CheckpointCatalog {

  /** One committed batch, as the catalog's batch history keeps it. */
  public record BatchRow(String mirror, long batchId, StreamPosition checkpoint, BatchFigures figures) {}

  private final Map<String, MirrorConfig> mirrors = new HashMap<>();
  private final Map<String, StreamPosition> checkpoints = new HashMap<>();
  private final Map<String, Long> committedBatchIds = new HashMap<>();
  private final List<BatchRow> batches = new ArrayList<>();
  private final Map<String, MirrorStateChange> states = new HashMap<>();
  private final Map<String, Instant> visibleThrough = new HashMap<>();
  private final List<MirrorStateChange> stateHistory = new ArrayList<>();
  private final List<String> failedAttempts = new ArrayList<>();
  private final List<io.mongocdc.pipeline.PoisonEvent> quarantined = new ArrayList<>();
  private final Map<String, String> hashKeyFingerprints = new HashMap<>();
  private final Map<String, String> fieldRuleRewrites = new HashMap<>();
  private final Map<String, FieldRulesWritten> fieldRulesWritten = new HashMap<>();
  private final java.util.Set<String> quarantineRewrites = new java.util.HashSet<>();
  private RuntimeException failNextCommit;

  @Override
  public synchronized Optional<StreamPosition> register(MirrorConfig mirror) {
    mirrors.put(mirror.name(), mirror);
    return Optional.ofNullable(checkpoints.get(mirror.name()));
  }

  @Override
  public synchronized CheckpointCommit commit(String mirror, long batchId, StreamPosition checkpoint,
      BatchFigures figures) {
    if (failNextCommit != null) {
      RuntimeException failure = failNextCommit;
      failNextCommit = null;
      throw failure;
    }
    boolean known = batches.stream().anyMatch(b -> b.mirror().equals(mirror) && b.batchId() == batchId);
    if (!known) {
      batches.add(new BatchRow(mirror, batchId, checkpoint, figures));
    }
    StreamPosition stored = checkpoints.get(mirror);
    // As the real catalog: only a later batch moves the checkpoint, and never backwards.
    boolean advance = stored == null
        || batchId > committedBatchIds.get(mirror) && !stored.isAfter(checkpoint)
        || batchId == committedBatchIds.get(mirror) && checkpoint.isAfter(stored);
    if (advance) {
      checkpoints.put(mirror, checkpoint);
      committedBatchIds.put(mirror, batchId);
    }
    notifyAll();
    CheckpointCommit.Outcome outcome = advance ? CheckpointCommit.Outcome.APPLIED
        : batchId > committedBatchIds.get(mirror) ? CheckpointCommit.Outcome.POSITION_BEHIND
        : CheckpointCommit.Outcome.NOT_NEWER;
    return new CheckpointCommit(outcome, committedBatchIds.get(mirror), checkpoints.get(mirror));
  }

  @Override
  public synchronized Optional<StreamPosition> committed(String mirror) {
    return Optional.ofNullable(checkpoints.get(mirror));
  }

  @Override
  public synchronized Optional<MirrorConfig> registered(String mirror) {
    return Optional.ofNullable(mirrors.get(mirror));
  }

  @Override
  public synchronized long committedBatchId(String mirror) {
    return committedBatchIds.getOrDefault(mirror, 0L);
  }

  @Override
  public synchronized boolean recordState(MirrorStateChange change) {
    if (!mirrors.containsKey(change.mirror())) {
      return false;
    }
    MirrorStateChange recorded = states.get(change.mirror());
    boolean newer = recorded == null || recorded.atMillis() < change.atMillis()
        || recorded.atMillis() == change.atMillis() && recorded.sequence() < change.sequence();
    if (newer) {
      if (change.fieldRulesWritten() != null) {
        fieldRulesWritten.put(change.mirror(), change.fieldRulesWritten());
      }
      states.put(change.mirror(), change);
      stateHistory.add(change);
      notifyAll();
    }
    return newer;
  }

  @Override
  public synchronized void setAside(String mirror, long batchId, io.mongocdc.pipeline.PoisonEvent event) {
    quarantined.removeIf(kept -> kept.position().equals(event.position()));
    quarantined.add(event);
  }

  @Override
  public synchronized List<QuarantinedEvent> quarantined(String mirror) {
    List<QuarantinedEvent> pending = new ArrayList<>();
    for (int i = 0; i < quarantined.size(); i++) {
      pending.add(new QuarantinedEvent(i, quarantined.get(i), 0));
    }
    return pending;
  }

  @Override
  public void markReplayed(List<Long> ids) {
    throw new UnsupportedOperationException("replay-quarantine is tested on the PostgreSQL catalog");
  }

  @Override
  public void refusedAgain(long id, String reason) {
    throw new UnsupportedOperationException("replay-quarantine is tested on the PostgreSQL catalog");
  }

  /** Poison events set aside, in the order they were. */
  public synchronized java.util.List<io.mongocdc.pipeline.PoisonEvent> quarantined() {
    return java.util.List.copyOf(quarantined);
  }

  @Override
  public synchronized void recordVisibleThrough(String mirror, Instant through) {
    visibleThrough.merge(mirror, through, (a, b) -> a.isAfter(b) ? a : b);
  }

  /** How far the mirror's visible rows reach, as its batches reported; null before a report. */
  public synchronized Instant visibleThrough(String mirror) {
    return visibleThrough.get(mirror);
  }

  @Override
  public synchronized void recordFailedAttempt(String mirror, long batchId, int attempt, String failureType,
      String message) {
    failedAttempts.add(mirror + " batch " + batchId + " attempt " + attempt + ": [" + failureType + "] " + message);
  }

  /** The state the catalog shows for the mirror, or null. */
  public synchronized MirrorStateChange state(String mirror) {
    return states.get(mirror);
  }

  /** Waits until the state the catalog shows for the mirror satisfies {@code condition}. */
  public synchronized MirrorStateChange awaitState(String mirror, Predicate<MirrorStateChange> condition,
      Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (states.get(mirror) == null || !condition.test(states.get(mirror))) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("the state of " + mirror + " did not get there; it is " + states.get(mirror));
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return states.get(mirror);
  }

  /** Every state change the catalog applied, in order. */
  public synchronized List<MirrorStateChange> stateHistory() {
    return List.copyOf(stateHistory);
  }

  public synchronized List<String> failedAttempts() {
    return List.copyOf(failedAttempts);
  }

  @Override
  public synchronized void forget(String mirror) {
    mirrors.remove(mirror);
    checkpoints.remove(mirror);
    committedBatchIds.remove(mirror);
    fieldRulesWritten.remove(mirror);
    batches.removeIf(b -> b.mirror().equals(mirror));
  }

  @Override
  public synchronized String recordFieldHashKeyFingerprint(String mirror, String fingerprint) {
    return hashKeyFingerprints.computeIfAbsent(mirror, m -> fingerprint);
  }

  @Override
  public synchronized int rewriteQuarantined(String mirror, String rewriteId, io.mongocdc.source.ResumeToken after,
      io.mongocdc.source.ResumeToken upTo, java.util.function.UnaryOperator<io.mongocdc.pipeline.PoisonEvent> rewrite) {
    if (!quarantineRewrites.add(mirror + "\0" + rewriteId)) {
      return 0;
    }
    int changed = 0;
    for (int i = 0; i < quarantined.size(); i++) {
      io.mongocdc.source.ResumeToken position = quarantined.get(i).position();
      if ((after == null || position.isAfter(after)) && (upTo == null || !position.isAfter(upTo))) {
        quarantined.set(i, rewrite.apply(quarantined.get(i)));
        changed++;
      }
    }
    return changed;
  }

  @Override
  public synchronized void recordFieldRuleRewrite(String mirror, String state, long rows) {
    fieldRuleRewrites.put(mirror, state + " " + rows);
  }

  @Override
  public synchronized Optional<FieldRulesWritten> fieldRulesWritten(String mirror) {
    return Optional.ofNullable(fieldRulesWritten.get(mirror));
  }

  @Override
  public synchronized void recordFieldRuleRewriteProgress(String mirror, FieldRuleRewrite rewrite) {
    fieldRulesWritten.computeIfPresent(mirror, (m, written) -> written.withProgress(rewrite));
  }

  /** The last field rule rewrite state recorded for the mirror, and its rows: {@code "<state> <rows>"}. */
  public synchronized String fieldRuleRewrite(String mirror) {
    return fieldRuleRewrites.get(mirror);
  }

  /** Forgets the mirror's checkpoint only, as for a mirror dropped before its first commit. */
  public synchronized void forgetCheckpoint(String mirror) {
    checkpoints.remove(mirror);
    committedBatchIds.remove(mirror);
  }

  public synchronized void failNextCommit(RuntimeException failure) {
    failNextCommit = failure;
  }

  public synchronized List<BatchRow> batches(String mirror) {
    return batches.stream().filter(b -> b.mirror().equals(mirror)).toList();
  }

  public synchronized boolean isRegistered(String mirror) {
    return mirrors.containsKey(mirror);
  }

  /** Waits until the mirror's committed checkpoint satisfies {@code condition}. */
  public synchronized StreamPosition awaitCheckpoint(String mirror, Predicate<StreamPosition> condition,
      Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (checkpoints.get(mirror) == null || !condition.test(checkpoints.get(mirror))) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("checkpoint of " + mirror + " did not get there; it is " + checkpoints.get(mirror));
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return checkpoints.get(mirror);
  }
}
