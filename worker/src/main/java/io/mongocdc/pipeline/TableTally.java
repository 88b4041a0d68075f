package io.mongocdc.pipeline;

import io.mongocdc.decode.ChangeRecord;
import io.mongocdc.decode.Operation;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * What a pull delivered to one destination table: records and raw source bytes per operation.
 * Bytes are kept per operation so a caller that drops an operation type can leave its bytes out.
 *
 * @param sourceNamespace the namespace ({@code db.collection}) the table's records come from
 * @param records records per operation (operations without records are absent)
 * @param bytes raw change-event bytes per operation
 */
public record TableTally(String sourceNamespace, Map<Operation, Long> records, Map<Operation, Long> bytes) {

  public TableTally {
    records = copy(records);
    bytes = copy(bytes);
  }

  private static Map<Operation, Long> copy(Map<Operation, Long> counts) {
    Map<Operation, Long> copy = new EnumMap<>(Operation.class);
    copy.putAll(counts);
    return Collections.unmodifiableMap(copy);
  }

  /** A mutable tally, written by one thread (the sender) and copied when it commits. */
  static final class Counter {
    private final String sourceNamespace;
    private final long[] records = new long[Operation.values().length];
    private final long[] bytes = new long[Operation.values().length];

    Counter(String sourceNamespace) {
      this.sourceNamespace = sourceNamespace;
    }

    String sourceNamespace() {
      return sourceNamespace;
    }

    void add(ChangeRecord record) {
      records[record.operation().ordinal()]++;
      bytes[record.operation().ordinal()] += record.sourceBytes();
    }

    void addAll(Counter other) {
      for (int i = 0; i < records.length; i++) {
        records[i] += other.records[i];
        bytes[i] += other.bytes[i];
      }
    }

    TableTally snapshot() {
      Map<Operation, Long> r = new EnumMap<>(Operation.class);
      Map<Operation, Long> b = new EnumMap<>(Operation.class);
      for (Operation op : Operation.values()) {
        if (records[op.ordinal()] > 0) {
          r.put(op, records[op.ordinal()]);
          b.put(op, bytes[op.ordinal()]);
        }
      }
      return new TableTally(sourceNamespace, r, b);
    }
  }
}
