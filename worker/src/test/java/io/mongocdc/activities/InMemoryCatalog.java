package io.mongocdc.activities;

import io.mongocdc.workflows.model.BatchFigures;
import io.mongocdc.workflows.model.Checkpoint;
import io.mongocdc.workflows.model.CommitResult;
import io.mongocdc.workflows.model.MirrorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/** A catalog in memory with the contract of the real one: monotonic, idempotent commits. */
public final class InMemoryCatalog implements CheckpointCatalog {

  /** One committed batch, as the catalog's batch history keeps it. */
  public record BatchRow(String mirror, long batchId, Checkpoint checkpoint, BatchFigures figures) {}

  private final Map<String, MirrorConfig> mirrors = new HashMap<>();
  private final Map<String, Checkpoint> checkpoints = new HashMap<>();
  private final List<BatchRow> batches = new ArrayList<>();
  private RuntimeException failNextCommit;

  @Override
  public synchronized Optional<Checkpoint> register(MirrorConfig mirror) {
    mirrors.put(mirror.name(), mirror);
    return Optional.ofNullable(checkpoints.get(mirror.name()));
  }

  @Override
  public synchronized CommitResult commit(String mirror, long batchId, Checkpoint checkpoint, BatchFigures figures) {
    if (failNextCommit != null) {
      RuntimeException failure = failNextCommit;
      failNextCommit = null;
      throw failure;
    }
    boolean known = batches.stream().anyMatch(b -> b.mirror().equals(mirror) && b.batchId() == batchId);
    if (!known) {
      batches.add(new BatchRow(mirror, batchId, checkpoint, figures));
    }
    Checkpoint stored = checkpoints.get(mirror);
    boolean advance = stored == null || Checkpoints.isAfter(checkpoint, stored);
    if (advance) {
      checkpoints.put(mirror, checkpoint);
    }
    notifyAll();
    return new CommitResult(checkpoints.get(mirror), advance);
  }

  @Override
  public synchronized Optional<Checkpoint> committed(String mirror) {
    return Optional.ofNullable(checkpoints.get(mirror));
  }

  @Override
  public synchronized void forget(String mirror) {
    mirrors.remove(mirror);
    checkpoints.remove(mirror);
    batches.removeIf(b -> b.mirror().equals(mirror));
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
  public synchronized Checkpoint awaitCheckpoint(String mirror, Predicate<Checkpoint> condition, Duration timeout)
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
