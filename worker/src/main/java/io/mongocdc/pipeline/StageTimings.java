package io.mongocdc.pipeline;

import io.mongocdc.workflows.model.Stage;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where a pull spent its time. Decode time is summed over the workers, so it can exceed the
 * total; the waits say which stage held the others up.
 *
 * @param total wall time of the call
 * @param read time the reader spent waiting on the stream
 * @param readerBackPressure time the reader waited for an in-flight slot (downstream was full)
 * @param decode CPU time of the decode pool, summed over workers
 * @param senderWaitingForDecode time the sender waited for the next chunk's decode
 * @param sinkWrite time in {@link RecordSink#write}, summed over apply lanes
 * @param sinkCommit time the sender waited for commits (with several lanes: for all of them)
 * @param applyBackPressure time the sender waited to hand records to a full apply lane (zero
 *     with one lane, which the sender writes itself)
 * @param laneCommit time in {@link RecordSink#commit}, summed over apply lanes (zero with one)
 */
public record StageTimings(
    Duration total,
    Duration read,
    Duration readerBackPressure,
    Duration decode,
    Duration senderWaitingForDecode,
    Duration sinkWrite,
    Duration sinkCommit,
    Duration applyBackPressure,
    Duration laneCommit) {

  /** The figures as milliseconds by {@link Stage#key}, in stage order (for logs, heartbeats and the catalog). */
  public Map<String, Long> millisByStage() {
    Map<String, Long> stages = new LinkedHashMap<>();
    for (Stage stage : Stage.values()) {
      stages.put(stage.key(), of(stage).toMillis());
    }
    return stages;
  }

  private Duration of(Stage stage) {
    return switch (stage) {
      case READ -> read;
      case READER_BACK_PRESSURE -> readerBackPressure;
      case DECODE -> decode;
      case SENDER_WAITING_FOR_DECODE -> senderWaitingForDecode;
      case SINK_WRITE -> sinkWrite;
      case SINK_COMMIT -> sinkCommit;
      case APPLY_BACK_PRESSURE -> applyBackPressure;
      case LANE_COMMIT -> laneCommit;
    };
  }
}
