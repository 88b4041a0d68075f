package io.mongocdc.workflows.model;

/**
 * The pipeline stages a batch reports its time in ({@link BatchFigures#STAGE_MILLIS}), by the
 * name heartbeats and histories carry. The catalog keeps one {@code batches} column per stage.
 */
public enum Stage {
  /** The reader waiting on the stream. */
  READ("read"),
  /** The reader waiting for an in-flight slot: downstream was full. */
  READER_BACK_PRESSURE("readerBackPressure"),
  /** CPU time of the decode pool, summed over workers. */
  DECODE("decode"),
  /** The sender waiting for the next chunk's decode. */
  SENDER_WAITING_FOR_DECODE("senderWaitingForDecode"),
  /** Writing to the destination, summed over apply lanes. */
  SINK_WRITE("sinkWrite"),
  /** The sender waiting for commits. */
  SINK_COMMIT("sinkCommit"),
  /** The sender waiting to hand records to a full apply lane. */
  APPLY_BACK_PRESSURE("applyBackPressure"),
  /** Committing, summed over apply lanes. */
  LANE_COMMIT("laneCommit");

  private final String key;

  Stage(String key) {
    this.key = key;
  }

  /** The stage's name in {@link BatchFigures#STAGE_MILLIS}. */
  public String key() {
    return key;
  }
}
