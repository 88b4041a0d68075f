package io.mongocdc.pipeline;

/**
 * Whether a batch has had its turn with resources other batches wait for (the destination
 * connections it holds), so it ends, commits, and lets them have theirs: asked by the reader as
 * it reads, like the batch's other end conditions.
 */
@FunctionalInterface
public interface TurnSignal {

  /** Never over: the batch ends only on its own conditions. */
  TurnSignal NONE = elapsedNanos -> false;

  /** @param elapsedNanos how long the batch has read, by the pipeline's clock */
  boolean over(long elapsedNanos);
}
