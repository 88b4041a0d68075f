package io.mongocdc.pipeline;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

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

  /**
   * The inverse of {@link #millisByStage}: the timings of a pull that reported {@code
   * millisByStage}, a stage it did not report being zero.
   */
  public static StageTimings ofMillis(Duration total, Map<String, Long> millisByStage) {
    Function<String, Duration> stage =
        name -> Duration.ofMillis(millisByStage.getOrDefault(name, 0L));
    return new StageTimings(total, stage.apply("read"), stage.apply("readerBackPressure"), stage.apply("decode"),
        stage.apply("senderWaitingForDecode"), stage.apply("sinkWrite"), stage.apply("sinkCommit"),
        stage.apply("applyBackPressure"), stage.apply("laneCommit"));
  }

  /** The figures as milliseconds by stage name, in a fixed order (for logs and heartbeats). */
  public Map<String, Long> millisByStage() {
    Map<String, Long> stages = new LinkedHashMap<>();
    stages.put("read", read.toMillis());
    stages.put("readerBackPressure", readerBackPressure.toMillis());
    stages.put("decode", decode.toMillis());
    stages.put("senderWaitingForDecode", senderWaitingForDecode.toMillis());
    stages.put("sinkWrite", sinkWrite.toMillis());
    stages.put("sinkCommit", sinkCommit.toMillis());
    stages.put("applyBackPressure", applyBackPressure.toMillis());
    stages.put("laneCommit", laneCommit.toMillis());
    return stages;
  }
}
