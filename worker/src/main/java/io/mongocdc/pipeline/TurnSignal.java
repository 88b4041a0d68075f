package io.mongocdc.pipeline;

import org.bson.RawBsonDocument;

/**
 * Whether a batch has had its turn with resources other batches wait for (the destination
 * connections it holds), so it ends, commits, and lets them have theirs: asked by the reader as
 * it reads, like the batch's other end conditions.
 */
@FunctionalInterface
public interface TurnSignal {

  /** Never over: the batch ends only on its own conditions. */
  TurnSignal NONE = (elapsedNanos, latest) -> false;

  /**
   * @param elapsedNanos how long the batch has read, by the pipeline's clock
   * @param latest the event the reader read last; null when it has just found nothing more to
   *     read (the batch would only wait for its idle timeout while holding what others wait for)
   */
  boolean over(long elapsedNanos, RawBsonDocument latest);
}
