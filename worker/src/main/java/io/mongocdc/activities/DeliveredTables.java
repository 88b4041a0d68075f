package io.mongocdc.activities;

import io.mongocdc.decode.Operation;
import io.mongocdc.pipeline.TableTally;
import io.mongocdc.workflows.model.TableFigures;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/** A batch's per-table figures: the pipeline's tallies without excluded operations. */
final class DeliveredTables {

  private DeliveredTables() {}

  /** The tallies as figures, leaving out the records (and bytes) of excluded operations. */
  static Map<String, TableFigures> kept(Map<String, TableTally> tallies, Predicate<Operation> excluded) {
    Map<String, TableFigures> kept = new TreeMap<>();
    tallies.forEach((table, tally) -> {
      long[] records = new long[Operation.values().length];
      long bytes = 0;
      for (Map.Entry<Operation, Long> entry : tally.records().entrySet()) {
        if (!excluded.test(entry.getKey())) {
          records[entry.getKey().ordinal()] = entry.getValue();
          bytes += tally.bytes().getOrDefault(entry.getKey(), 0L);
        }
      }
      TableFigures figures = new TableFigures(tally.sourceNamespace(), records[Operation.INSERT.ordinal()],
          records[Operation.UPDATE.ordinal()], records[Operation.REPLACE.ordinal()],
          records[Operation.DELETE.ordinal()], bytes);
      if (figures.records() > 0) {
        kept.put(table, figures);
      }
    });
    return kept;
  }

  /** The records the figures hold, over every table and operation. */
  static long records(Map<String, TableFigures> figures) {
    return figures.values().stream().mapToLong(TableFigures::records).sum();
  }
}
