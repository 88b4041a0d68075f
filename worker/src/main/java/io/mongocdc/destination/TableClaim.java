package io.mongocdc.destination;

/**
 * Records a table a sink is about to create as the mirror's, before it is created: a collection
 * that appears mid-batch gets its table only if no other mirror owns that table.
 */
@FunctionalInterface
public interface TableClaim {

  /** Claims nothing: for sinks whose tables no catalog records (tests, benchmarks). */
  TableClaim NONE = table -> {};

  /**
   * @throws io.mongocdc.ports.TableOwnedByAnotherMirrorException if the table is another
   *     mirror's: the sink fails without creating or writing it
   */
  void claim(DestinationTable table);
}
