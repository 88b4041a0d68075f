package io.mongocdc.activities;

import io.mongocdc.pipeline.RecordSink;
import io.mongocdc.ports.InvalidMirrorConfigurationException;
import io.mongocdc.ports.MirrorDestination;
import io.mongocdc.decode.Operation;
import io.mongocdc.workflows.model.ColumnDrift;
import io.mongocdc.workflows.model.MirrorConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The sinks one batch attempt applies through, one per apply lane, each behind the mirror's
 * operation exclusions; closed together when the pull returns.
 */
final class LaneSinks implements AutoCloseable {

  private final List<RecordSink> opened;
  private final List<ExcludingSink> lanes;

  private LaneSinks(List<RecordSink> opened, List<ExcludingSink> lanes) {
    this.opened = opened;
    this.lanes = lanes;
  }

  /** Opens {@link MirrorDestination#applyLanes} sinks; if one cannot be opened, closes the others. */
  static LaneSinks open(MirrorDestination destination, MirrorConfig mirror, long batchId) {
    int count = destination.applyLanes(mirror);
    if (count < 1) {
      throw new InvalidMirrorConfigurationException("the destination must apply through at least one lane, got "
          + count);
    }
    List<RecordSink> opened = new ArrayList<>(count);
    try {
      for (int i = 0; i < count; i++) {
        opened.add(destination.openSink(mirror, batchId));
      }
    } catch (RuntimeException e) {
      opened.forEach(RecordSink::close);
      throw e;
    }
    List<ExcludingSink> lanes = opened.stream()
        .map(sink -> new ExcludingSink(sink, mirror.settings().excludedOperations()))
        .toList();
    return new LaneSinks(opened, lanes);
  }

  List<ExcludingSink> lanes() {
    return lanes;
  }

  boolean excludes(Operation operation) {
    return lanes.get(0).excludes(operation);
  }

  /** Records skipped as excluded up to each lane's last commit, over every lane. */
  long committedExcluded() {
    return lanes.stream().mapToLong(ExcludingSink::committedExcluded).sum();
  }

  /** History rows appended by committed transactions, over every lane. */
  long committedHistoryRows() {
    return opened.stream().mapToLong(RecordSink::historyRowsCommitted).sum();
  }

  /** Typed column drift in committed transactions, by table and column, over every lane. */
  Map<String, Map<String, Long>> committedDrift() {
    Map<String, Map<String, Long>> drift = Map.of();
    for (RecordSink sink : opened) {
      drift = ColumnDrift.plus(drift, sink.driftCommitted());
    }
    return drift;
  }

  @Override
  public void close() {
    opened.forEach(RecordSink::close);
  }
}
